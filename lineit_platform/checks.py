"""System checks for the settings that matter (``manage.py check``, run at every start)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.core.checks import Error, Tags, Warning, register

from lineit.engine import MAX_PLAYERS, MIN_PLAYERS, RULESETS
from lineit.sandbox import SandboxUnavailable, host_view_accepted, requested_tier
from lineit_platform import throttles


@register(Tags.compatibility)
def check_platform_settings(app_configs: Any = None, **kwargs: Any) -> list[Error | Warning]:
    problems: list[Error | Warning] = []
    for size in settings.LADDER_TABLE_SIZES:
        if not MIN_PLAYERS <= size <= MAX_PLAYERS:
            problems.append(
                Error(f"LADDER_TABLE_SIZES holds {size}: tables seat {MIN_PLAYERS} to {MAX_PLAYERS}", id="lineit.E001")
            )
    if not settings.LADDER_TABLE_SIZES:
        problems.append(Error("LADDER_TABLE_SIZES is empty", id="lineit.E001"))
    for ruleset in settings.LADDER_RULESETS:
        if ruleset not in RULESETS:
            problems.append(
                Error(f"LADDER_RULESETS names {ruleset!r}; rulesets are {', '.join(RULESETS)}", id="lineit.E002")
            )
    problems += _match_durations()
    if settings.MATCH_SOFT_MARGIN_SECONDS >= settings.MATCH_TIME_LIMIT_SECONDS:
        problems.append(Error("MATCH_SOFT_MARGIN_SECONDS must be below MATCH_TIME_LIMIT_SECONDS", id="lineit.E003"))
    timeout = settings.CELERY_BROKER_TRANSPORT_OPTIONS.get("visibility_timeout")
    if timeout is not None and timeout <= settings.MATCH_TIME_LIMIT_SECONDS:
        problems.append(
            Error(
                f"CELERY_VISIBILITY_TIMEOUT ({timeout} s) must exceed MATCH_TIME_LIMIT_SECONDS "
                f"({settings.MATCH_TIME_LIMIT_SECONDS} s), or a long match is delivered twice",
                id="lineit.E004",
            )
        )
    try:
        requested_tier()  # the sandbox reads SANDBOX_TIER itself (the CLI and the worker alike)
        host_view_accepted()  # and SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW
    except SandboxUnavailable as error:
        problems.append(Error(str(error), id="lineit.E005"))
    engine = settings.DATABASES["default"]["ENGINE"]
    if settings.CELERY_BROKER_URL.startswith("filesystem") and engine.endswith("postgresql"):
        problems.append(
            Warning(
                "PostgreSQL with the filesystem broker: workers on other machines will not see the queue; "
                "set CELERY_BROKER_URL to Redis",
                id="lineit.W002",
            )
        )
    if engine.endswith("postgresql") and not throttles.counters_shared():
        problems.append(
            Warning(
                f"The throttle cache 'api' is {throttles.counter_cache_backend()}, one per process: each web process "
                "counts uploads and sign-in attempts on its own, multiplying every limit; set API_CACHE_URL "
                "to Redis (redis://host:6379/1)",
                id="lineit.W003",
            )
        )
    deadline = max(settings.WEBHOOK_TIMEOUT_SECONDS, settings.EMAIL_TIMEOUT)
    time_limit = settings.NOTIFICATION_TIME_LIMIT_SECONDS
    if time_limit <= deadline:
        problems.append(
            Warning(
                f"NOTIFICATION_TIME_LIMIT_SECONDS ({time_limit}) must exceed the "
                f"deadlines of a webhook and a mail (WEBHOOK_TIMEOUT_SECONDS, EMAIL_TIMEOUT: {deadline:g} s), or "
                "every slow delivery is stopped by the time limit instead",
                id="lineit.W020",
            )
        )
    if settings.REQUEST_MAX_BYTES <= settings.BOT_UPLOAD_MAX_BYTES:
        problems.append(
            Error(
                f"REQUEST_MAX_BYTES ({settings.REQUEST_MAX_BYTES}) must exceed BOT_UPLOAD_MAX_BYTES "
                f"({settings.BOT_UPLOAD_MAX_BYTES}) by a multipart envelope, or the largest bot cannot be uploaded",
                id="lineit.E006",
            )
        )
    return problems


def weak_secret_key(key: str) -> bool:
    """The development default, or what Django's check --deploy calls weak (security.W009)."""
    return key.startswith(("insecure-", "django-insecure-")) or len(key) < 50 or len(set(key)) < 5


@register(Tags.security)
def check_production_secret_key(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """In production (PostgreSQL with DEBUG off) every manage.py command refuses a default or weak
    SECRET_KEY: docker-compose's migrate service then fails, and web, worker and beat never start.
    The embedded default (SQLite, `make run` on a laptop) runs with the development key."""
    if settings.DEBUG or not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        return []
    if not weak_secret_key(settings.SECRET_KEY):
        return []
    return [
        Error(
            "SECRET_KEY is the development default or too weak for production (PostgreSQL with DEBUG off): "
            "set it to at least 50 random characters, e.g. python3 -c 'import secrets; print(secrets.token_urlsafe(50))'",
            id="lineit.E007",
        )
    ]


@register(Tags.security)
def check_replay_signing_key(app_configs: Any = None, **kwargs: Any) -> list[Error]:
    """In production (PostgreSQL with DEBUG off) the replays the site serves are signed with a key
    of its own, which REPLAY_SIGNING_KEY must give: a key made on one machine would differ from
    the next one's, and vanish with its disk. DEBUG and the embedded default make one in VAR_DIR."""
    from lineit_platform.replay_signing import may_make_a_key

    if settings.REPLAY_SIGNING_KEY or may_make_a_key():
        return []
    return [
        Error(
            "REPLAY_SIGNING_KEY is not set: in production (PostgreSQL with DEBUG off) the site signs the replays "
            "it serves with a key of its own: set it to an Ed25519 private key, e.g. python3 -c 'import base64, "
            "os; print(base64.b64encode(os.urandom(32)).decode())' (docs/replay-format.md, Signatures)",
            id="lineit.E009",
        )
    ]


def _match_durations() -> list[Error | Warning]:
    """The ladder's matches, and the longest test match the API admits, must fit the match time
    limit under the default limits (tournaments.selectors.operations.match_duration_refusal says
    why match_schedule would refuse one that does not), and one game the lease, which only a
    finished game renews."""
    from lineit.botkit.limits import Limits
    from lineit.botkit.schedule import longest_seconds
    from tournaments.selectors.operations import match_duration_refusal

    found: list[Error | Warning] = []
    longest_game = longest_seconds(MAX_PLAYERS, 1, Limits())
    if longest_game > settings.MATCH_LEASE_SECONDS:
        found.append(
            Warning(
                f"MATCH_LEASE_SECONDS ({settings.MATCH_LEASE_SECONDS} s) is shorter than one game of "
                f"{MAX_PLAYERS} bots may last under the default limits ({longest_game:.0f} s): the sweeper "
                "would take such a match for lost while it still plays, and run it again",
                id="lineit.W005",
            )
        )
    for size in (size for size in settings.LADDER_TABLE_SIZES if MIN_PLAYERS <= size <= MAX_PLAYERS):
        refusal = match_duration_refusal(
            num_players=size, games=size * settings.LADDER_DEALS_PER_MATCH, limits=Limits()
        )
        if refusal is not None:
            found.append(Error(f"every ladder match of {size} bots would be refused: {refusal}", id="lineit.E008"))
    refusal = match_duration_refusal(num_players=MAX_PLAYERS, games=settings.API_MATCH_MAX_GAMES, limits=Limits())
    if refusal is not None:
        found.append(
            Warning(
                f"API_MATCH_MAX_GAMES admits test matches the time limits refuse: {refusal}. Raise "
                "MATCH_TIME_LIMIT_SECONDS, or lower API_MATCH_MAX_GAMES",
                id="lineit.W004",
            )
        )
    return found


@register(Tags.security, deploy=True)
def check_deployment_settings(app_configs: Any = None, **kwargs: Any) -> list[Warning]:
    if settings.SECRET_KEY.startswith("insecure-"):
        return [Warning("SECRET_KEY is the development default; set it in production", id="lineit.W001")]
    return []
