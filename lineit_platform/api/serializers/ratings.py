"""Ratings: the leaderboard, head-to-head records, rating history."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from lineit.stats.elo import PROVISIONAL_GAMES
from tournaments.models import Rating, RatingEvent
from tournaments.selectors.ratings import Row, leaderboard_rows

from .common import RowListSerializer, RowWriter, absolute, picked


class RatingFitSerializer(serializers.Serializer):
    """A version's whole-history rating (a Plackett-Luce fit of every rated game of its ruleset
    and rules version, refitted periodically) with its 95% interval."""

    rating = serializers.FloatField()
    low = serializers.FloatField(help_text="The low end of the 95% interval: the conservative estimate.")
    high = serializers.FloatField()
    ranks = serializers.ListField(
        child=serializers.IntegerField(),
        min_length=2,
        max_length=2,
        help_text="[best, worst]: the ranks this interval allows among the versions fitted with it; "
        "versions whose ranges overlap cannot be told apart yet.",
    )
    fitted_at = serializers.DateTimeField()


# A rating of selectors.leaderboard, ranked from the context's ``first_rank`` (1 unless given):
# leaderboard_rows builds a page. (A docstring here would be the schema's description.)
class LeaderboardEntrySerializer(RowWriter, serializers.ModelSerializer):
    rank = serializers.SerializerMethodField(help_text="Position in this (filtered) leaderboard, from 1.")
    version = serializers.IntegerField(source="version_id", read_only=True)
    label = serializers.CharField(source="version.label", read_only=True)
    bot = serializers.IntegerField(source="version.bot_id", read_only=True)
    bot_name = serializers.CharField(source="version.bot.name", read_only=True)
    owner = serializers.CharField(source="version.bot.owner.username", read_only=True)
    version_status = serializers.CharField(source="version.status", read_only=True)
    games = serializers.IntegerField(read_only=True, help_text="Rated games played.")
    provisional = serializers.SerializerMethodField(help_text=f"Fewer than {PROVISIONAL_GAMES} rated games.")
    history_url = serializers.SerializerMethodField()
    fit = RatingFitSerializer(
        read_only=True,
        allow_null=True,
        help_text="The whole-history fit beside the live Elo (`rating`); null before the version's first "
        "fit, or when it never met the main pool of its ruleset.",
    )

    class Meta:
        model = Rating
        list_serializer_class = RowListSerializer
        fields = [
            "rank",
            "version",
            "label",
            "bot",
            "bot_name",
            "owner",
            "version_status",
            "ruleset",
            "rules_version",
            "rating",
            "games",
            "provisional",
            "updated_at",
            "history_url",
            "fit",
        ]
        read_only_fields = fields

    def build(self, ratings: list[Row]) -> list[Row]:
        return leaderboard_rows(ratings, first_rank=self.context.get("first_rank", 1))

    def write(self, row: Row) -> dict[str, Any]:
        return picked(row, self.Meta.fields, history_url=self.get_history_url(row))

    # The types of the schema's computed fields; the rows hold rank and provisional.
    def get_rank(self, row: Row) -> int:
        return int(row["rank"])

    def get_provisional(self, row: Row) -> bool:
        return bool(row["provisional"])

    @extend_schema_field(OpenApiTypes.URI)
    def get_history_url(self, row: Row) -> str:
        # A page has one ruleset and rules version: the query is written once per page.
        queries = self.context.setdefault("history_queries", {})
        key = (row["ruleset"], row["rules_version"])
        query = queries.get(key)
        if query is None:
            query = queries[key] = urlencode({"ruleset": row["ruleset"], "rules_version": row["rules_version"]})
        return f"{absolute(self, 'api-version-rating-history', row['version'])}?{query}"


class HeadToHeadSerializer(serializers.Serializer):
    """One opponent of a bot: every finished match they played at the same table, ranked or not."""

    opponent = serializers.IntegerField(source="opponent.pk", help_text="The other bot's id.")
    opponent_name = serializers.CharField(source="opponent.name")
    games = serializers.IntegerField(help_text="Games at the same table.")
    wins = serializers.FloatField(help_text="Games this bot ranked better than the other; a shared rank is one half.")
    win_rate = serializers.FloatField()
    win_interval = serializers.ListField(
        child=serializers.FloatField(),
        min_length=2,
        max_length=2,
        source="interval",
        help_text="The win rate's 95% Wilson interval (the games of one duplicate deal are not "
        "independent: read it as a little too narrow).",
    )
    mean_score_difference = serializers.FloatField(help_text="This bot's score minus the other's, per game.")


class RatingEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = RatingEvent
        fields = [
            "id",
            "match",
            "game_index",
            "ruleset",
            "rules_version",
            "before",
            "after",
            "delta",
            "k",
            "created_at",
        ]
        read_only_fields = fields
