"""A new version's SPRT against the previous one (tournaments/selectors/sprt.py: sprt_summary is
the one builder; these pick the schema's fields from it), starting one, and a bot's setting."""

from __future__ import annotations

from rest_framework import serializers

from tournaments.models import SprtTest


class SprtFailuresSerializer(serializers.Serializer):
    new = serializers.IntegerField(help_text="Games the new version forfeited (each a lost game).")
    old = serializers.IntegerField(help_text="Games the old version forfeited.")


class SprtTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    status = serializers.ChoiceField(
        choices=SprtTest.Status.choices,
        help_text="`running`, `h1` (the new version is stronger), `h0` (it is not), `undecided` (the game "
        "cap came first) or `cancelled` (see `reason`).",
    )
    verdict = serializers.CharField(help_text="The status in words.")
    reason = serializers.CharField(help_text="Why it was cancelled (empty otherwise).")
    new_version = serializers.IntegerField()
    new_label = serializers.CharField()
    old_version = serializers.IntegerField()
    old_label = serializers.CharField()
    ruleset = serializers.CharField()
    elo0 = serializers.FloatField(help_text="Elo of H0 (the new version not better).")
    elo1 = serializers.FloatField(help_text="Elo of H1 (the new version better).")
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    batch_games = serializers.IntegerField(help_text="Games per batch match (whole deal pairs).")
    max_games = serializers.IntegerField(help_text="The cap: undecided after this many games.")
    seed = serializers.IntegerField(help_text="`lineit sprt --seed SEED --batch BATCH_GAMES` plays the same deals.")
    games = serializers.IntegerField(help_text="Games folded into the test so far.")
    pairs = serializers.IntegerField(help_text="Deal pairs folded in (a deal played twice, seats swapped).")
    pair_counts = serializers.DictField(
        child=serializers.IntegerField(),
        help_text="Deal pairs by the new version's points over their two games: 0, 0.5, 1, 1.5, 2.",
    )
    pairs_left_out = serializers.IntegerField(help_text="Pairs left out because the platform failed in them.")
    failures = SprtFailuresSerializer()
    score = serializers.FloatField(help_text="The new version's mean score a game (0.5: even).")
    llr = serializers.FloatField(help_text="The log-likelihood ratio of H1 against H0.")
    llr_bounds = serializers.ListField(
        child=serializers.FloatField(), help_text="[lower, upper]: H0 at or below the lower, H1 at or above the upper."
    )
    elo = serializers.FloatField(
        allow_null=True, help_text="The new version's Elo over the old (null: infinite, or no pair yet)."
    )
    elo_interval = serializers.ListField(
        child=serializers.FloatField(allow_null=True), help_text="95% interval [low, high]; null: unbounded."
    )
    current_match = serializers.IntegerField(allow_null=True, help_text="Id of the batch match being played.")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    state = serializers.CharField(help_text="Changes when a batch is folded in or the test ends (for polling).")
    text = serializers.CharField(help_text="One line on where the test stands.")


class SprtStartSerializer(serializers.Serializer):
    old_version = serializers.IntegerField(
        required=False, help_text="Id of the version to beat (default: the newest active one before it)."
    )
    elo0 = serializers.FloatField(required=False, help_text="Default 0 (lineit sprt's).")
    elo1 = serializers.FloatField(required=False, help_text="Default 10.")
    alpha = serializers.FloatField(required=False, help_text="Default 0.05.")
    beta = serializers.FloatField(required=False, help_text="Default 0.05.")
    max_games = serializers.IntegerField(required=False, help_text="Default SPRT_MAX_GAMES.")
    batch_games = serializers.IntegerField(required=False, help_text="Default SPRT_BATCH_GAMES (even).")


class BotSprtSettingSerializer(serializers.Serializer):
    test_new_versions = serializers.BooleanField(
        help_text="Whether each new active version is tested against the previous one (default true)."
    )
