from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.safestring import SafeString

from bots.models import BotVersion
from lineit.botkit.untrusted import safe_text
from lineit_platform.errors import ApplicationError
from tournaments.services.matches.states import match_cancel, match_requeue
from tournaments.services.ratings_recompute import ratings_recompute
from tournaments.services.tournaments.creation import tournament_create, tournament_create_check
from tournaments.services.tournaments.recurring import (
    RECURRING_FIELDS,
    recurring_tournament_check,
    recurring_tournament_save,
)
from tournaments.services.tournaments.running import tournament_advance, tournament_cancel, tournament_start

from .models import (
    TOURNAMENT_SETTINGS,
    Game,
    GameFailure,
    Match,
    MatchChunk,
    MatchEntrant,
    Rating,
    RatingEvent,
    RecurringTournament,
    Tournament,
    TournamentEntry,
)


def replay_link(game: Game) -> str:
    if game.pk is None:  # the inline's empty form, which the change page renders too
        return "-"
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


# A failure's message and stderr tail (and a match's error, which may quote a sandbox's output)
# are shown with their control characters and bidi overrides escaped, as on the pages.


@admin.display(description="message")
def failure_message(failure: GameFailure) -> str:
    return safe_text(failure.message)


@admin.display(description="stderr tail")
def failure_stderr(failure: GameFailure) -> SafeString:
    return format_html('<pre class="stderr">{}</pre>', safe_text(failure.stderr_tail, keep_newlines=True))


@admin.display(description="error")
def match_error(match: Match) -> str:
    return safe_text(match.error)


class FailureInline(admin.TabularInline):
    model = GameFailure
    fk_name = "match"
    extra = 0
    fields = ("game", "seat", "version", "kind", failure_message, "decision", failure_stderr)
    readonly_fields = fields
    can_delete = False


@admin.display(description="error")
def chunk_error(chunk: MatchChunk) -> str:
    return safe_text(chunk.error)


class ChunkInline(admin.TabularInline):
    """Who played which games of the match, and how many times (services/matches/chunks.py)."""

    model = MatchChunk
    extra = 0
    fields = ("first", "stop", "stopped", "status", "attempts", "worker", "started_at", "finished_at", chunk_error)
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


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
    readonly_fields = [field.name if field.name != "error" else match_error for field in Match._meta.fields]
    exclude = ("error",)
    inlines = [EntrantInline, ChunkInline, GameInline, FailureInline]
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
    readonly_fields = tuple(field.name for field in Game._meta.fields if field.name != "id")  # the replay: a link
    exclude = ("replay",)

    @admin.display(description="replay")
    def replay(self, game: Game) -> str:
        return replay_link(game)


@admin.register(GameFailure)
class GameFailureAdmin(admin.ModelAdmin):
    list_display = ("match", "game", "seat", "version", "kind", failure_message)
    list_filter = ("kind",)
    search_fields = ("version__bot__name", "message", "=match__id")
    raw_id_fields = ("game", "match", "version")
    # What the referee recorded, as it was: read-only, the bot's text escaped.
    fields = ("match", "game", "seat", "version", "kind", failure_message, "decision", failure_stderr)
    readonly_fields = fields


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


# --- Tournaments -----------------------------------------------------------------------------------

CREATE_FIELDS = (*TOURNAMENT_SETTINGS, "starts_at", "signup_deadline")


class TournamentCreateForm(forms.ModelForm):
    versions = forms.ModelMultipleChoiceField(
        queryset=BotVersion.objects.active().select_related("bot"),
        required=False,
        help_text="With participation 'chosen versions': the entrants.",
    )
    seed = forms.IntegerField(required=False, min_value=0, max_value=2**62, help_text="Empty: drawn at random.")

    class Meta:
        model = Tournament
        fields = CREATE_FIELDS

    def clean(self) -> dict[str, object]:
        data = super().clean()
        if not self.errors:
            try:
                tournament_create_check(
                    **{name: data.get(name) for name in CREATE_FIELDS if name not in ("name", "ranked")},
                    versions=list(data.get("versions") or []),
                )
            except ApplicationError as error:
                raise ValidationError(error.message) from error
        return data


class EntryInline(admin.TabularInline):
    model = TournamentEntry
    extra = 0
    fields = ("seed", "bot", "version", "frozen", "dropped", "signed_up_by", "created_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class TournamentMatchInline(admin.TabularInline):
    model = Match
    fk_name = "tournament"
    extra = 0
    fields = ("tournament_round", "tournament_table", "status", "attempts", "games_played", "finished_at")
    readonly_fields = fields
    can_delete = False
    show_change_link = True
    ordering = ("tournament_round", "tournament_table")

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


@admin.register(Tournament)
class TournamentAdmin(admin.ModelAdmin):
    """Created through ``tournament_create``; afterwards only its name changes here: the actions
    start, advance and cancel it through their services."""

    list_display = ("id", "name", "format", "table_size", "status", "round_number", "ranked", "starts_at")
    list_filter = ("status", "format", "ruleset", "ranked", "participation")
    search_fields = ("name", "=id")
    actions = ["start_now", "advance", "cancel"]
    inlines = [EntryInline, TournamentMatchInline]

    def get_form(self, request: HttpRequest, obj: Tournament | None = None, change: bool = False, **kwargs: object):
        if obj is None:
            kwargs["form"] = TournamentCreateForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Tournament | None = None):
        if obj is None:
            return [*CREATE_FIELDS, "versions", "seed"]
        return [
            "name",
            *CREATE_FIELDS[1:],
            "status",
            "seed",
            "round_number",
            "note",
            "recurring",
            "created_by",
            "started_at",
            "finished_at",
            "public_page",
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Tournament | None = None):
        if obj is None:
            return []
        return [name for name in self.get_fields(request, obj) if name != "name"]

    def get_inlines(self, request: HttpRequest, obj: Tournament | None = None):
        return self.inlines if obj is not None else []

    @admin.display(description="page")
    def public_page(self, tournament: Tournament) -> str:
        return format_html('<a href="/tournaments/{}/">/tournaments/{}/</a>', tournament.pk, tournament.pk)

    def save_model(self, request: HttpRequest, obj: Tournament, form: forms.ModelForm, change: bool) -> None:
        if change:
            obj.save(update_fields=["name"])
            return
        data = {name: form.cleaned_data[name] for name in CREATE_FIELDS}
        data["options"] = data["options"] or {}
        data["limits"] = data["limits"] or {}
        created = tournament_create(
            **data,
            versions=list(form.cleaned_data["versions"]),
            seed=form.cleaned_data["seed"],
            created_by=request.user,
        )
        obj.pk = created.pk
        obj.refresh_from_db()

    @admin.action(description="Start now (freeze entries, pair round 1)")
    def start_now(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            after = tournament_start(tournament_id=tournament.pk, force=True)
            self.message_user(request, f"{after.name}: {after.status}", messages.SUCCESS)

    @admin.action(description="Advance (if the round's matches have all ended)")
    def advance(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            after = tournament_advance(tournament_id=tournament.pk)
            self.message_user(request, f"{after.name}: {after.status}, round {after.round_number}", messages.SUCCESS)

    @admin.action(description="Cancel (its pending matches are cancelled)")
    def cancel(self, request: HttpRequest, queryset: QuerySet[Tournament]) -> None:
        for tournament in queryset:
            try:
                tournament_cancel(tournament=tournament, note=f"cancelled by {request.user}")
                self.message_user(request, f"{tournament.name}: cancelled", messages.SUCCESS)
            except ApplicationError as error:
                self.message_user(request, error.message, messages.WARNING)


class RecurringTournamentForm(forms.ModelForm):
    class Meta:
        model = RecurringTournament
        fields = RECURRING_FIELDS

    def clean(self) -> dict[str, object]:
        data = super().clean()
        if not self.errors:
            probe = RecurringTournament(**{name: data.get(name) for name in RECURRING_FIELDS})
            probe.options, probe.limits = probe.options or {}, probe.limits or {}
            try:
                recurring_tournament_check(probe)
            except ApplicationError as error:
                raise ValidationError(error.message) from error
        return data


@admin.register(RecurringTournament)
class RecurringTournamentAdmin(admin.ModelAdmin):
    """A template: every ``every`` from ``next_run_at`` the tournaments tick makes a tournament."""

    form = RecurringTournamentForm
    list_display = ("name", "format", "participation", "every", "next_run_at", "last_run_at", "enabled")
    list_filter = ("enabled", "format", "participation")
    readonly_fields = ("last_run_at", "created_at")

    def save_model(self, request: HttpRequest, obj: RecurringTournament, form: forms.ModelForm, change: bool) -> None:
        fields = {name: form.cleaned_data[name] for name in RECURRING_FIELDS}
        fields["options"], fields["limits"] = fields["options"] or {}, fields["limits"] or {}
        saved = recurring_tournament_save(recurring=obj if change else None, **fields)
        obj.pk = saved.pk
