from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from lineit_platform.errors import ApplicationError

from .models import Game, GameFailure, Match, MatchEntrant, Rating, RatingEvent
from .services import match_cancel, match_requeue, ratings_recompute


def replay_link(game: Game) -> str:
    return format_html('<a href="{}">replay</a>', reverse("replay-json", args=[game.pk]))


class EntrantInline(admin.TabularInline):
    model = MatchEntrant
    extra = 0
    fields = ("index", "version", "total_score", "mean_rank", "wins", "forfeits")
    readonly_fields = fields
    can_delete = False


class GameInline(admin.TabularInline):
    model = Game
    extra = 0
    fields = ("index", "deal", "seats", "scores", "ranks", "forfeits", "replay_link")
    readonly_fields = fields
    can_delete = False
    show_change_link = True

    @admin.display(description="replay")
    def replay_link(self, game: Game) -> str:
        return replay_link(game)


class FailureInline(admin.TabularInline):
    model = GameFailure
    fk_name = "match"
    extra = 0
    fields = ("game", "seat", "version", "kind", "message", "decision", "stderr_tail")
    readonly_fields = fields
    can_delete = False


@admin.register(Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = (
        "id",
        "status",
        "ruleset",
        "num_players",
        "games",
        "ranked",
        "origin",
        "attempts",
        "worker",
        "sandbox_tier",
        "created_at",
        "finished_at",
    )
    list_filter = ("status", "ruleset", "ranked", "origin", "num_players", "sandbox_tier")
    search_fields = ("=id", "entrants__version__bot__name", "worker", "error")
    readonly_fields = [field.name for field in Match._meta.fields]
    inlines = [EntrantInline, GameInline, FailureInline]
    actions = ["requeue", "cancel"]

    @admin.action(description="Requeue (running: back to the queue; failed or cancelled: as a new match)")
    def requeue(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        self._each(request, queryset, match_requeue, "requeued")

    @admin.action(description="Cancel queued or running matches")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Match]) -> None:
        self._each(request, queryset, match_cancel, "cancelled")

    def _each(self, request: HttpRequest, queryset: QuerySet[Match], service: object, verb: str) -> None:
        done = 0
        for match in queryset:
            try:
                service(match=match)  # type: ignore[operator]
                done += 1
            except ApplicationError as error:
                self.message_user(request, error.message, messages.WARNING)
        self.message_user(request, f"{done} match(es) {verb}", messages.SUCCESS)


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("__str__", "deal", "scores", "ranks", "forfeits", "replay")
    list_filter = ("match__ruleset", "match__num_players")
    search_fields = ("=match__id",)
    readonly_fields = (
        "match",
        "index",
        "deal",
        "deck_seed",
        "seats",
        "scores",
        "ranks",
        "forfeits",
        "timings",
        "replay",
    )
    exclude = ("replay",)

    @admin.display(description="replay")
    def replay(self, game: Game) -> str:
        return replay_link(game)


@admin.register(GameFailure)
class GameFailureAdmin(admin.ModelAdmin):
    list_display = ("match", "game", "seat", "version", "kind", "message")
    list_filter = ("kind",)
    search_fields = ("version__bot__name", "message", "=match__id")
    raw_id_fields = ("game", "match", "version")


@admin.register(Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("version", "ruleset", "rules_version", "rating", "games", "updated_at")
    list_filter = ("ruleset", "rules_version")
    search_fields = ("version__bot__name",)
    list_select_related = ("version__bot",)
    readonly_fields = ("version", "ruleset", "rules_version", "rating", "games")
    actions = ["recompute"]

    @admin.action(description="Recompute every rating from stored results")
    def recompute(self, request: HttpRequest, queryset: QuerySet[Rating]) -> None:
        outcome = ratings_recompute(write=True)
        if outcome.mismatches:
            self.message_user(request, f"rewrote ratings: {len(outcome.mismatches)} difference(s)", messages.WARNING)
        else:
            self.message_user(request, "recomputed ratings match the live table exactly", messages.SUCCESS)


@admin.register(RatingEvent)
class RatingEventAdmin(admin.ModelAdmin):
    list_display = ("key", "version", "ruleset", "before", "after", "delta", "k", "created_at")
    list_filter = ("ruleset", "rules_version")
    search_fields = ("key", "version__bot__name")
    raw_id_fields = ("match", "version")
