"""The app's models, by domain: ``matches`` (a match, its entrants, games and failures),
``ratings`` (live ratings, their events and the writer's ledger), ``sprt`` (a new version's
sequential test against the previous one, and each bot's setting) and ``tournaments`` (tournaments,
their entries and recurring templates). Django reads an app's models from this module."""

from .matches import (
    Game,
    GameFailure,
    LiveGame,
    Match,
    MatchChunk,
    MatchEntrant,
    MatchQuerySet,
    compress_replay,
    decompress_replay,
)
from .ratings import Rating, RatingEvent, RatingFit, RatingFitRun, RatingLedger
from .sprt import BotSprtSetting, SprtTest, SprtTestQuerySet
from .tournaments import TOURNAMENT_SETTINGS, RecurringTournament, Tournament, TournamentEntry, TournamentSettings

__all__ = [
    "TOURNAMENT_SETTINGS",
    "BotSprtSetting",
    "Game",
    "GameFailure",
    "LiveGame",
    "Match",
    "MatchChunk",
    "MatchEntrant",
    "MatchQuerySet",
    "Rating",
    "RatingEvent",
    "RatingFit",
    "RatingFitRun",
    "RatingLedger",
    "RecurringTournament",
    "SprtTest",
    "SprtTestQuerySet",
    "Tournament",
    "TournamentEntry",
    "TournamentSettings",
    "compress_replay",
    "decompress_replay",
]
