"""What the API shows and accepts. Serializers only shape data: writes go through the services,
and whether a viewer may see a private field is asked of ``permissions.may_manage``.

One module per resource family; everything is importable from here."""

from .accounts import MeSerializer, TokenRequestSerializer, TokenSerializer
from .bots import (
    BotCreateSerializer,
    BotSerializer,
    FailureHealthSerializer,
    ValidationReportSerializer,
    VersionSerializer,
    VersionUploadSerializer,
)
from .matches import (
    EntrantSerializer,
    FailureSerializer,
    GameSerializer,
    MatchDetailSerializer,
    MatchRequestSerializer,
    MatchSerializer,
    ReplayPublicKeySerializer,
    VerificationSerializer,
)
from .ratings import HeadToHeadSerializer, LeaderboardEntrySerializer, RatingEventSerializer
from .tournaments import (
    TournamentCancelSerializer,
    TournamentCreateSerializer,
    TournamentDetailSerializer,
    TournamentEntrySerializer,
    TournamentSerializer,
    TournamentSignUpSerializer,
)

__all__ = [
    "BotCreateSerializer",
    "BotSerializer",
    "EntrantSerializer",
    "FailureHealthSerializer",
    "FailureSerializer",
    "GameSerializer",
    "HeadToHeadSerializer",
    "LeaderboardEntrySerializer",
    "MatchDetailSerializer",
    "MatchRequestSerializer",
    "MatchSerializer",
    "MeSerializer",
    "RatingEventSerializer",
    "ReplayPublicKeySerializer",
    "TokenRequestSerializer",
    "TokenSerializer",
    "TournamentCancelSerializer",
    "TournamentCreateSerializer",
    "TournamentDetailSerializer",
    "TournamentEntrySerializer",
    "TournamentSerializer",
    "TournamentSignUpSerializer",
    "ValidationReportSerializer",
    "VerificationSerializer",
    "VersionSerializer",
    "VersionUploadSerializer",
]
