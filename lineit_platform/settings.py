"""The one settings file. Every value that differs between machines comes from the environment.

Defaults run everything on one machine with nothing installed: SQLite under var/ and a Celery
broker on the file system (kombu's filesystem transport), also under var/. ``DATABASE_URL``
selects PostgreSQL and ``CELERY_BROKER_URL`` selects Redis. docs/platform.md lists every
variable. The helpers below fail loudly on a value they cannot read, naming the variable.

Why one file of about 700 lines, past the 400 at which a module of the platform becomes a package:
the settings are read once, top to bottom, and later values are built from earlier ones (the
broker's visibility timeout from the match time limit, the beat's schedule from the intervals of
the sections above it; the apps, the middleware and the caches are extended by later sections),
so the order of reading is part of the meaning. One file keeps that order in view and gives
every variable one place, the house's one settings file read from the environment (Healthchecks,
Saleor); settings split over modules would have to import one another in a fixed order to mean
the same. The file is cut into sections instead (Core, Bots, Matches, Email and notifications,
Celery, API, Web pages, Operations), each a few screens long.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from django.core.exceptions import ImproperlyConfigured

from lineit.botkit.safe_paths import secure_folder
from lineit_platform.database_url import database_from_url

BASE_DIR = Path(__file__).resolve().parent.parent

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str) -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be one of {sorted(_TRUE | _FALSE - {''})}, not {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None, maximum: int | None = None) -> int:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = int(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be an integer, not {raw!r}") from None
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ImproperlyConfigured(f"{name} must be from {minimum} to {maximum}, not {value}")
    return value


def env_float(name: str, default: float, *, minimum: float = 0.0) -> float:
    raw = os.environ.get(name)
    if raw is None:
        return default
    try:
        value = float(raw)
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a number, not {raw!r}") from None
    if value < minimum:
        raise ImproperlyConfigured(f"{name} must be at least {minimum}, not {value}")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def env_int_list(name: str, default: list[int]) -> list[int]:
    items = env_list(name, [str(value) for value in default])
    try:
        return [int(item) for item in items]
    except ValueError:
        raise ImproperlyConfigured(f"{name} must be a comma-separated list of integers, not {items!r}") from None


def make_folder(path: Path, name: str, *, private: bool = False) -> None:
    """A folder the settings need, made now; a path that cannot be one names its variable.
    ``private``: a folder this process writes data into (VAR_DIR's), which must be this user's and
    writable by no one else, every folder and link on its way root's or this user's
    (lineit/botkit/safe_paths.py): VAR_DIR may be under /tmp, where another user could plant a link."""
    try:
        if private:
            secure_folder(path, mode=0o755)
        else:
            path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise ImproperlyConfigured(f"{name}: cannot make the folder {path}: {error.strerror or error}") from None


# --- Core -------------------------------------------------------------------------------------

DEBUG = env_bool("DEBUG", False)
_INSECURE_KEY = "insecure-development-key-set-SECRET_KEY-in-production"
SECRET_KEY = env_str("SECRET_KEY", _INSECURE_KEY)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", ["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])
VAR_DIR = Path(env_str("VAR_DIR", str(BASE_DIR / "var")))


def env_signing_key(name: str) -> str:
    """A private key for lineit_platform/replay_signing.py, checked now (its value is never
    quoted: it is a secret); empty when unset."""
    raw = os.environ.get(name, "").strip()
    if raw:
        from lineit_platform.replay_signing import read_private_key

        try:
            read_private_key(raw)
        except ValueError as error:
            raise ImproperlyConfigured(f"{name} is {error}") from None
    return raw


# The key every replay the site serves is signed with (docs/replay-format.md, "Signatures"): an
# Ed25519 private key as PEM or its 32 bytes in base64. Unset: DEBUG and the embedded default
# make one in VAR_DIR; production (PostgreSQL, DEBUG off) refuses to start (lineit.E009).
REPLAY_SIGNING_KEY = env_signing_key("REPLAY_SIGNING_KEY")


def env_proxy_ssl_header(name: str) -> tuple[str, str] | None:
    """``X-Forwarded-Proto`` (the proxy's header saying the client used HTTPS, with the value
    ``https``) or ``X-Forwarded-Proto: https``; empty: no such header is believed."""
    import re

    raw = env_str(name, "").strip()
    if not raw:
        return None
    header, _, value = raw.partition(":")
    header, value = header.strip(), value.strip() or "https"
    if not re.fullmatch(r"[A-Za-z0-9-]+", header) or not re.fullmatch(r"[A-Za-z0-9.-]+", value):
        raise ImproperlyConfigured(f"{name} must look like X-Forwarded-Proto or X-Forwarded-Proto: https, not {raw!r}")
    return f"HTTP_{header.upper().replace('-', '_')}", value


# HTTPS behind a TLS proxy (README, "The production environment"; `manage.py check --deploy` is
# silent with it). All off by default: `make run` serves plain HTTP on 127.0.0.1.
SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", False)
SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 0, minimum=0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", False)
SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", False)
SESSION_COOKIE_SECURE = env_bool("SESSION_COOKIE_SECURE", False)
CSRF_COOKIE_SECURE = env_bool("CSRF_COOKIE_SECURE", False)
# Believe it only behind a proxy that sets it on every request (and drops the client's own).
SECURE_PROXY_SSL_HEADER = env_proxy_ssl_header("SECURE_PROXY_SSL_HEADER")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_celery_beat",
    "rest_framework",
    "rest_framework.authtoken",
    "django_filters",
    "drf_spectacular",
    "lineit_platform.apps.PlatformConfig",
    "bots.apps.BotsConfig",
    "tournaments.apps.TournamentsConfig",
    "notifications.apps.NotificationsConfig",
]

MIDDLEWARE = [
    # The three that only set headers come first, so every response has them, a refusal included.
    "django.middleware.security.SecurityMiddleware",
    # Every response, static files included: the strict Content-Security-Policy.
    "lineit_platform.security.ContentSecurityPolicyMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    # Pages and JSON gzipped when asked (static files too, unless WhiteNoise serves a .gz already).
    # BREACH: Django's CSRF token is masked afresh on every response and GZipMiddleware pads the
    # gzip header with random bytes ("Heal the BREACH"), so a secret's compressed length leaks
    # nothing a request can steer.
    "django.middleware.gzip.GZipMiddleware",
    # Then, before anything reads the body: one larger than REQUEST_MAX_BYTES is refused.
    "lineit_platform.request_limits.RequestSizeLimitMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]

ROOT_URLCONF = "lineit_platform.urls"
WSGI_APPLICATION = "lineit_platform.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": database_from_url(
        env_str("DATABASE_URL", "sqlite://"),
        default_sqlite=VAR_DIR / "db.sqlite3",
        conn_max_age=env_int("DATABASE_CONN_MAX_AGE", 0, minimum=0),
    )
}
if DATABASES["default"]["ENGINE"].endswith("sqlite3"):
    make_folder(Path(DATABASES["default"]["NAME"]).parent, "DATABASE_URL")
    # Workers and the web process share the file: wait for a lock rather than fail at once.
    DATABASES["default"]["OPTIONS"] = {"timeout": 30, "transaction_mode": "IMMEDIATE"}
else:
    # Django's own OPTIONS: the values are bound on the server, so a query's text is the same
    # whatever they are; and over a connection kept between requests psycopg prepares a text the
    # second time it runs it (keeping 100), so PostgreSQL plans it once per connection: planning
    # the reads' joins afresh took most of the database's CPU. Behind a pooler in transaction mode,
    # keep DATABASE_CONN_MAX_AGE=0 (or use PgBouncer 1.21+ with max_prepared_statements).
    # lineit_platform/database.py: a prepared statement outdated by a migration is planned again.
    DATABASES["default"]["OPTIONS"].setdefault("server_side_binding", True)
    if DATABASES["default"]["CONN_MAX_AGE"] or DATABASES["default"]["OPTIONS"].get("pool"):
        DATABASES["default"]["OPTIONS"].setdefault("prepare_threshold", 1)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
MEDIA_URL = "media/"
# Uploaded bot code lives here by default (BOT_STORAGE=local), one folder per content hash.
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))


def env_bot_storage(name: str) -> dict[str, Any]:
    """Where uploaded bot code is kept (the "bots" storage, bots/storage.py): ``local``, files
    under MEDIA_ROOT with a copy in the database, so a worker on another host that has only the
    database and the broker reads them too; or ``s3``, an S3-compatible bucket through
    django-storages (the ``s3`` extra), named by AWS_STORAGE_BUCKET_NAME, at AWS_S3_ENDPOINT_URL
    (MinIO, Ceph, ...) in AWS_S3_REGION_NAME, under AWS_LOCATION; boto3 reads the credentials
    itself (AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or an instance role)."""
    kind = env_str(name, "local").strip().lower()
    if kind == "local":
        return {"BACKEND": "bots.storage.SharedLocalStorage", "OPTIONS": {"location": MEDIA_ROOT}}
    if kind != "s3":
        raise ImproperlyConfigured(f"{name} must be local or s3, not {kind!r}")
    import importlib.util

    if importlib.util.find_spec("storages") is None or importlib.util.find_spec("boto3") is None:
        raise ImproperlyConfigured(f"{name}=s3 needs django-storages and boto3: pip install 'lineit-arena[s3]'")
    bucket = env_str("AWS_STORAGE_BUCKET_NAME", "")
    if not bucket:
        raise ImproperlyConfigured(f"{name}=s3 needs AWS_STORAGE_BUCKET_NAME, the bucket's name")
    options: dict[str, Any] = {
        "bucket_name": bucket,
        "location": env_str("AWS_LOCATION", "bots").strip("/"),
        "file_overwrite": True,  # names are content hashes: writing one again writes the same bytes
        "default_acl": None,  # the bucket's own (private) policy
        "querystring_auth": True,
    }
    for option, variable in (("endpoint_url", "AWS_S3_ENDPOINT_URL"), ("region_name", "AWS_S3_REGION_NAME")):
        if value := env_str(variable, ""):
            options[option] = value
    return {"BACKEND": "storages.backends.s3.S3Storage", "OPTIONS": options}


STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
    "bots": env_bot_storage("BOT_STORAGE"),
}
# Each worker's copies of bot code by content hash, filled from the "bots" storage on first use
# and checked against the version's sha256 before every match (bots/code_cache.py).
BOT_CODE_CACHE_DIR = Path(env_str("BOT_CODE_CACHE_DIR", str(MEDIA_ROOT / "bot-code-cache")))

LOGGING: dict[str, Any] = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
}

# --- Bots -------------------------------------------------------------------------------------

BOT_UPLOAD_MAX_BYTES = env_int("BOT_UPLOAD_MAX_BYTES", 1024 * 1024, minimum=1024)
# The largest request body, any address: a larger Content-Length is answered 413 before the body
# is read (lineit_platform/request_limits.py). The default leaves room for a bot file's multipart
# envelope. Django reads at most as much, in memory (never a temporary file).
REQUEST_MAX_BYTES = env_int("REQUEST_MAX_BYTES", BOT_UPLOAD_MAX_BYTES + 64 * 1024, minimum=1024)
DATA_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
FILE_UPLOAD_MAX_MEMORY_SIZE = REQUEST_MAX_BYTES
DATA_UPLOAD_MAX_NUMBER_FIELDS = 1000  # more: 400 too_many_fields
DATA_UPLOAD_MAX_NUMBER_FILES = 10  # a request uploads one bot file
BOT_ZIP_MAX_FILES = env_int("BOT_ZIP_MAX_FILES", 200, minimum=1)
BOT_ZIP_MAX_FILE_BYTES = env_int("BOT_ZIP_MAX_FILE_BYTES", 5 * 1024 * 1024, minimum=1024)
BOT_ZIP_MAX_TOTAL_BYTES = env_int("BOT_ZIP_MAX_TOTAL_BYTES", 20 * 1024 * 1024, minimum=1024)
BOT_ZIP_MAX_RATIO = env_int("BOT_ZIP_MAX_RATIO", 100, minimum=1)
BOT_VALIDATION_GAMES = env_int("BOT_VALIDATION_GAMES", 2, minimum=1, maximum=100)
# A version still validating this long after its validation was sent is sent again by the sweeper
# (the message was lost: the broker was down at the upload). Validating twice is harmless.
BOT_VALIDATION_RESEND_AFTER_SECONDS = env_int("BOT_VALIDATION_RESEND_AFTER_SECONDS", 600, minimum=1)
SYSTEM_USERNAME = env_str("SYSTEM_USERNAME", "lineit")

# --- Matches, sandbox and ladder --------------------------------------------------------------

# Hard limit on one match task; the soft limit comes MATCH_SOFT_MARGIN_SECONDS earlier. A match is
# refused when its bots, using every second their limits give them, could take longer
# (botkit.schedule.longest_seconds): 8 hours admit API_MATCH_MAX_GAMES (100) games of five bots
# under the default limits.
MATCH_TIME_LIMIT_SECONDS = env_int("MATCH_TIME_LIMIT_SECONDS", 8 * 3600, minimum=10)
MATCH_SOFT_MARGIN_SECONDS = env_int("MATCH_SOFT_MARGIN_SECONDS", 30, minimum=1)
# A running match holds a lease (its deadline), renewed as its games finish. The sweeper requeues
# a match whose lease ran out: its worker died. It must exceed the longest game (five bots using
# every second of the default limits: 420 s; system check lineit.W005).
MATCH_LEASE_SECONDS = env_int("MATCH_LEASE_SECONDS", 600, minimum=2)
MATCH_MAX_ATTEMPTS = env_int("MATCH_MAX_ATTEMPTS", 3, minimum=1, maximum=100)
# A match is played in chunks of this many games (rounded up to whole deals), each claimed by one
# worker and recorded as it ends: several workers play a long match at once, and a fault plays
# one chunk again (docs/platform.md, "Chunks").
MATCH_CHUNK_GAMES = env_int("MATCH_CHUNK_GAMES", 100, minimum=1, maximum=100_000)
# How long a worker whose database connection dropped keeps trying to record (or claim, or give
# back) a chunk before it gives up and the lease decides.
MATCH_DATABASE_RETRY_SECONDS = env_int("MATCH_DATABASE_RETRY_SECONDS", 120, minimum=0)
MATCH_RETRY_DELAY_SECONDS = env_int("MATCH_RETRY_DELAY_SECONDS", 10, minimum=0)
# A queued match whose message may have been lost is sent again after this long.
MATCH_RESEND_AFTER_SECONDS = env_int("MATCH_RESEND_AFTER_SECONDS", 600, minimum=1)
# SANDBOX_TIER (empty: the best tier that works) and SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW (empty: the
# Landlock tier, where a bot sees this machine's paths, runs no untrusted bot) are read by the
# sandbox itself, for the worker and the command line alike (lineit/sandbox/tiers.py:
# requested_tier, host_view_accepted); a system check refuses an unknown value.
SANDBOX_PIN_CPU = env_bool("SANDBOX_PIN_CPU", True)

# The rating writer applies ranked matches in id order and waits for one still queued or running,
# but not for ever: one pending for longer than this is passed over (the later ones are rated
# without it) and rated when it ends, after them (tournaments/services/ratings.py).
RATINGS_WAIT_SECONDS = env_int("RATINGS_WAIT_SECONDS", 900, minimum=0)
# The whole-history fit beside Elo (tournaments/services/ratings_fit.py) runs this often.
RATINGS_FIT_SECONDS = env_float("RATINGS_FIT_SECONDS", 3600.0, minimum=10.0)

LADDER_ENABLED = env_bool("LADDER_ENABLED", True)
LADDER_RULESETS = env_list("LADDER_RULESETS", ["standard"])
LADDER_TABLE_SIZES = env_int_list("LADDER_TABLE_SIZES", [2, 3, 4])
LADDER_DEALS_PER_MATCH = env_int("LADDER_DEALS_PER_MATCH", 2, minimum=1, maximum=1000)
LADDER_PENDING_TARGET = env_int("LADDER_PENDING_TARGET", 4, minimum=0, maximum=10_000)
LADDER_INTERVAL_SECONDS = env_float("LADDER_INTERVAL_SECONDS", 10.0, minimum=1.0)
# Failure health (docs/platform.md, "Failure health"): a version that forfeits a game by its own
# fault in this many ranked matches in a row is taken off the ladder (0: never); the pages count
# failures by kind over the last FAILURE_HEALTH_DAYS days.
LADDER_MAX_CONSECUTIVE_FAILING_MATCHES = env_int("LADDER_MAX_CONSECUTIVE_FAILING_MATCHES", 5, minimum=0)
FAILURE_HEALTH_DAYS = env_int("FAILURE_HEALTH_DAYS", 30, minimum=1, maximum=3650)
# Placement (docs/platform.md, "Placement"): a newly validated version plays rated matches on the
# interactive queue until its 95% rating interval is PLACEMENT_INTERVAL_ELO each side or narrower
# in each ladder ruleset (its whole-history one, or the one its games give with its opponents'
# ratings held: tournaments/selectors/versions.py placement_intervals), or it has played
# PLACEMENT_GAMES rated games there (0: no placement); at most PLACEMENT_MAX_MATCHES such matches
# at once on the whole platform, each of PLACEMENT_DEALS_PER_MATCH duplicate deals, against
# opponents spread PLACEMENT_SPREAD_ELO around its expected rating.
PLACEMENT_GAMES = env_int("PLACEMENT_GAMES", 300, minimum=0, maximum=10_000)
PLACEMENT_MAX_MATCHES = env_int("PLACEMENT_MAX_MATCHES", 2, minimum=1, maximum=1000)
PLACEMENT_DEALS_PER_MATCH = env_int("PLACEMENT_DEALS_PER_MATCH", 2, minimum=1, maximum=1000)
PLACEMENT_SPREAD_ELO = env_float("PLACEMENT_SPREAD_ELO", 150.0, minimum=0.0)
PLACEMENT_INTERVAL_ELO = env_float("PLACEMENT_INTERVAL_ELO", 50.0, minimum=0.0)
SWEEP_INTERVAL_SECONDS = env_float("SWEEP_INTERVAL_SECONDS", 60.0, minimum=1.0)

# --- Email and notifications (notifications/, docs/platform.md "Notifications") ---------------


def env_email_url(name: str) -> dict[str, Any]:
    """An SMTP server as one URL: ``smtp://user:password@host:587`` (STARTTLS with
    ``smtp+tls://``, TLS from the start with ``smtps://``; user and password percent-encoded)."""
    from urllib.parse import unquote, urlsplit

    raw = env_str(name, "")
    try:
        parts = urlsplit(raw)
        port = parts.port
    except ValueError:
        raise ImproperlyConfigured(f"{name} must look like smtp://user:password@host:587, not {raw!r}") from None
    schemes = {"smtp": (False, False, 25), "smtp+tls": (True, False, 587), "smtps": (False, True, 465)}
    if parts.scheme not in schemes or not parts.hostname:
        raise ImproperlyConfigured(f"{name} must look like smtp://user:password@host:587 (smtp, smtp+tls or smtps)")
    use_tls, use_ssl, default_port = schemes[parts.scheme]
    return {
        "EMAIL_HOST": parts.hostname,
        "EMAIL_PORT": port or default_port,
        "EMAIL_HOST_USER": unquote(parts.username or ""),
        "EMAIL_HOST_PASSWORD": unquote(parts.password or ""),
        "EMAIL_USE_TLS": use_tls,
        "EMAIL_USE_SSL": use_ssl,
    }


# Mail goes over SMTP once EMAIL_URL or EMAIL_HOST is set, and is printed on the console
# otherwise (`make run` shows every notification mail in the worker's output).
_EMAIL_URL = env_str("EMAIL_URL", "")
_EMAIL = env_email_url("EMAIL_URL") if _EMAIL_URL else {}
EMAIL_HOST = _EMAIL.get("EMAIL_HOST", env_str("EMAIL_HOST", ""))
EMAIL_PORT = _EMAIL.get("EMAIL_PORT", env_int("EMAIL_PORT", 25, minimum=1, maximum=65535))
EMAIL_HOST_USER = _EMAIL.get("EMAIL_HOST_USER", env_str("EMAIL_HOST_USER", ""))
EMAIL_HOST_PASSWORD = _EMAIL.get("EMAIL_HOST_PASSWORD", env_str("EMAIL_HOST_PASSWORD", ""))
EMAIL_USE_TLS = _EMAIL.get("EMAIL_USE_TLS", env_bool("EMAIL_USE_TLS", False))
EMAIL_USE_SSL = _EMAIL.get("EMAIL_USE_SSL", env_bool("EMAIL_USE_SSL", False))
if EMAIL_USE_TLS and EMAIL_USE_SSL:
    raise ImproperlyConfigured("EMAIL_USE_TLS and EMAIL_USE_SSL cannot both be true")
# Over SMTP, Django's backend with one total deadline: a send ends within EMAIL_TIMEOUT seconds,
# whatever the relay does (notifications/mail.py).
EMAIL_BACKEND = (
    "notifications.mail.DeadlineEmailBackend" if EMAIL_HOST else "django.core.mail.backends.console.EmailBackend"
)
EMAIL_TIMEOUT = env_int("EMAIL_TIMEOUT", 10, minimum=1)
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Line-it Arena <noreply@localhost>")
# The site's address in the links of notifications.
SITE_URL = env_str("SITE_URL", "http://127.0.0.1:8000").rstrip("/")
if not SITE_URL.startswith(("http://", "https://")):
    raise ImproperlyConfigured(f"SITE_URL must start with http:// or https://, not {SITE_URL!r}")
# A notification that could not be delivered is tried again after 30 s, 60 s, 120 s... (at most
# NOTIFICATION_RETRY_MAX_SECONDS apart), NOTIFICATION_MAX_ATTEMPTS attempts in all, then given up.
NOTIFICATION_MAX_ATTEMPTS = env_int("NOTIFICATION_MAX_ATTEMPTS", 5, minimum=1, maximum=30)
NOTIFICATION_RETRY_SECONDS = env_float("NOTIFICATION_RETRY_SECONDS", 30.0, minimum=0.0)
NOTIFICATION_RETRY_MAX_SECONDS = env_float("NOTIFICATION_RETRY_MAX_SECONDS", 3600.0, minimum=0.0)
# The backstop of one delivery task (docs/platform.md, "Notifications"): its soft time limit, which
# records the attempt as failed and schedules the next; the hard one comes 30 s later. A webhook and
# a mail each end within their own deadline (WEBHOOK_TIMEOUT_SECONDS, EMAIL_TIMEOUT) well before.
NOTIFICATION_TIME_LIMIT_SECONDS = env_int("NOTIFICATION_TIME_LIMIT_SECONDS", 60, minimum=1)
NOTIFICATION_HARD_TIME_LIMIT_SECONDS = NOTIFICATION_TIME_LIMIT_SECONDS + 30
# Webhooks: https only, to public addresses only (every address the host resolves to), on these
# ports, no credentials in the URL, no redirects followed, at most WEBHOOK_TIMEOUT_SECONDS for the
# whole request. DEBUG allows http and any address and port. WEBHOOK_ALLOW_LOOPBACK (for tests: a
# local receiver; never in production) allows http and any port to loopback addresses, and to them
# alone.
WEBHOOK_TIMEOUT_SECONDS = env_float("WEBHOOK_TIMEOUT_SECONDS", 5.0, minimum=0.1)
WEBHOOK_PORTS = env_int_list("WEBHOOK_PORTS", [443])
WEBHOOK_ALLOW_LOOPBACK = env_bool("WEBHOOK_ALLOW_LOOPBACK", False)
# SPRT of a new version (docs/platform.md, "SPRT of a new version"): batches of SPRT_BATCH_GAMES
# games (an even number: whole deal pairs) new against old on the interactive queue, until the
# test decides or SPRT_MAX_GAMES games are played (undecided); a batch match that fails or is
# cancelled is tried again, in SPRT_BATCH_ATTEMPTS matches at most, before the test stops.
SPRT_MAX_GAMES = env_int("SPRT_MAX_GAMES", 2000, minimum=2, maximum=1_000_000)
SPRT_BATCH_GAMES = env_int("SPRT_BATCH_GAMES", 20, minimum=2, maximum=1000)
if SPRT_BATCH_GAMES % 2 or SPRT_BATCH_GAMES > SPRT_MAX_GAMES:
    raise ImproperlyConfigured(
        f"SPRT_BATCH_GAMES must be an even number of games up to SPRT_MAX_GAMES, not {SPRT_BATCH_GAMES}"
    )
SPRT_BATCH_ATTEMPTS = env_int("SPRT_BATCH_ATTEMPTS", 3, minimum=1, maximum=100)
SPRT_RULESET = env_str("SPRT_RULESET", "standard")

# --- Celery -----------------------------------------------------------------------------------

CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://")
_BROKER_FOLDER = VAR_DIR / "celery" / "broker"
if CELERY_BROKER_URL.startswith("filesystem"):
    CELERY_BROKER_TRANSPORT_OPTIONS: dict[str, Any] = {
        "data_folder_in": str(_BROKER_FOLDER),
        "data_folder_out": str(_BROKER_FOLDER),
        "processed_folder": str(VAR_DIR / "celery" / "processed"),
        "store_processed": False,
    }
    make_folder(_BROKER_FOLDER, "VAR_DIR", private=True)
else:
    # Redis gives an unacknowledged message back only after the visibility timeout: it must be
    # longer than the longest match, or a healthy long match would run twice.
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "visibility_timeout": env_int(
            "CELERY_VISIBILITY_TIMEOUT",
            MATCH_TIME_LIMIT_SECONDS + 120,
            minimum=1,
        ),
        # A worker on several queues (-Q interactive,bulk) empties them in the order named, so
        # a validation or a test match goes before the ladder's backlog (round robin otherwise).
        "queue_order_strategy": "priority",
    }
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TASK_IGNORE_RESULT = True
CELERY_RESULT_BACKEND = None
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_TIMEZONE = "UTC"
CELERY_ENABLE_UTC = True
CELERY_TASK_ALWAYS_EAGER = False
# Three queues (lineit_platform/queueing.py, docs/platform.md "Queues"): interactive work someone
# waits for, bulk matches nobody waits for, and housekeeping that must never wait behind a match.
# Matches are sent to a queue by their origin (tournaments/services/matches/states.py: match_queue).
CELERY_TASK_DEFAULT_QUEUE = "bulk"
CELERY_TASK_ROUTES = {
    "bots.tasks.bot_version_validate_task": {"queue": "interactive"},
    # Short, and someone waits: a new version's SPRT starts, a batch is folded in (services/sprt.py).
    "tournaments.tasks.sprt_version_changed_task": {"queue": "interactive"},
    "tournaments.tasks.sprt_match_ended_task": {"queue": "interactive"},
    "tournaments.tasks.match_run_task": {"queue": "bulk"},
    **{
        f"tournaments.tasks.{name}": {"queue": "housekeeping"}
        for name in (
            "ladder_tick",
            "matches_sweep",
            "ratings_apply",
            "ratings_fit_task",
            "tournaments_tick",
            "tournament_start_task",
            "tournament_advance_task",
            "sprt_sweep_task",
        )
    },
}
# Notifications: making them from an event is the platform's own work, a few reads and writes
# (housekeeping); delivering them talks to the users' servers (webhooks, mail): a queue of its own,
# "outbound", served by a worker of its own, so that no receiver, however slow, holds the upkeep.
# The tasks' former names (lineit_platform.notifications.tasks.*) are aliases for one release: what
# the previous release queued on housekeeping is handed over there to the new names
# (notifications/tasks.py).
CELERY_TASK_ROUTES.update(
    {
        "notifications.tasks.notification_event_task": {"queue": "housekeeping"},
        "notifications.tasks.notification_send_task": {"queue": "housekeeping"},
        "notifications.tasks.notification_deliver_task": {"queue": "outbound"},
    }
)
CELERY_TASK_ROUTES.update(
    {
        f"lineit_platform.notifications.tasks.{name}": {"queue": "housekeeping"}
        for name in ("notification_event_task", "notification_send_task", "notification_deliver_task")
    }
)
CELERY_TASK_ROUTES["notifications.tasks.notifications_sweep_task"] = {"queue": "housekeeping"}
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
CELERY_BEAT_SCHEDULE = {
    "ladder-tick": {"task": "tournaments.tasks.ladder_tick", "schedule": LADDER_INTERVAL_SECONDS},
    "matches-sweep": {"task": "tournaments.tasks.matches_sweep", "schedule": SWEEP_INTERVAL_SECONDS},
    "ratings-apply": {"task": "tournaments.tasks.ratings_apply", "schedule": SWEEP_INTERVAL_SECONDS},
    "ratings-fit": {"task": "tournaments.tasks.ratings_fit_task", "schedule": RATINGS_FIT_SECONDS},
    # Starts due tournaments, advances any whose round ended unnoticed, makes recurring ones.
    "tournaments-tick": {"task": "tournaments.tasks.tournaments_tick", "schedule": SWEEP_INTERVAL_SECONDS},
    # Folds in a batch whose message was lost, cancels tests whose version left play unnoticed.
    "sprt-sweep": {"task": "tournaments.tasks.sprt_sweep_task", "schedule": SWEEP_INTERVAL_SECONDS},
    # Delivers what a stopped attempt or a lost message left pending (notifications/services.py).
    "notifications-sweep": {"task": "notifications.tasks.notifications_sweep_task", "schedule": SWEEP_INTERVAL_SECONDS},
}

# --- API (lineit_platform/api) ---------------------------------------------------------------


def env_rate(name: str, default: str) -> str:
    """A throttle rate such as ``20/hour`` (``s``, ``min``, ``hour``, ``day`` as the period)."""
    import re

    value = env_str(name, default).strip()
    if not re.fullmatch(r"[1-9][0-9]*/(s|sec|second|m|min|minute|h|hour|d|day)", value):
        raise ImproperlyConfigured(f"{name} must look like 20/hour (period s, min, hour or day), not {value!r}")
    return value


# The Swagger UI and Redoc assets (static files) of the documentation page.
INSTALLED_APPS += ["drf_spectacular_sidecar"]

API_PAGE_SIZE = env_int("API_PAGE_SIZE", 20, minimum=1, maximum=1000)
API_MAX_PAGE_SIZE = env_int("API_MAX_PAGE_SIZE", 100, minimum=1, maximum=10_000)
# Unranked matches a user may request, through the API or the pages: at most this many queued or
# running at once, at most this many games in any 24 hours, and at most this many games in one
# match (tournaments/services/match_requests.py). Staff are exempt.
API_MATCH_QUOTA_PENDING = env_int("API_MATCH_QUOTA_PENDING", 5, minimum=0)
API_MATCH_QUOTA_DAILY_GAMES = env_int("API_MATCH_QUOTA_DAILY_GAMES", 500, minimum=0)
API_MATCH_MAX_GAMES = env_int("API_MATCH_MAX_GAMES", 100, minimum=1, maximum=100_000)
# How long a cached response may live (lineit_platform/api/caching.py: final match details and
# the leaderboard, whose keys change with the data; the limit bounds only admin edits such as a
# renamed bot), and a name shown beside an id is kept (tournaments/selectors/names.py). 0 turns
# both off.
API_RESPONSE_CACHE_SECONDS = env_int("API_RESPONSE_CACHE_SECONDS", 300, minimum=0)
# Throttles and cached responses live in the cache named "api": set API_CACHE_URL (redis://...)
# when several web processes must share them; the default is per process (5,000 entries each).
API_CACHE_URL = env_str("API_CACHE_URL", "")
# A Redis cache that cannot answer within this long is a miss, its writes skipped (every Redis
# cache here is lineit_platform/redis_cache.py's: an outage degrades to uncached reads).
API_CACHE_TIMEOUT_SECONDS = env_float("API_CACHE_TIMEOUT_SECONDS", 0.25, minimum=0.01)
REDIS_CACHE_BACKEND = "lineit_platform.redis_cache.OutageTolerantRedisCache"
CACHES = {
    "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"},
    "api": (
        {
            "BACKEND": REDIS_CACHE_BACKEND,
            "LOCATION": API_CACHE_URL,
            "OPTIONS": {
                "socket_connect_timeout": API_CACHE_TIMEOUT_SECONDS,
                "socket_timeout": API_CACHE_TIMEOUT_SECONDS,
            },
        }
        if API_CACHE_URL
        else {
            "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
            "LOCATION": "api",
            "OPTIONS": {"MAX_ENTRIES": 5000},
        }
    ),
}

# Rate limits of the API and the pages alike (lineit_platform/throttles.py).
THROTTLE_RATES = {
    "bots": env_rate("API_THROTTLE_BOTS", "20/day"),  # new bots per user
    "uploads": env_rate("API_THROTTLE_UPLOADS", "30/hour"),  # per user
    "match_requests": env_rate("API_THROTTLE_MATCH_REQUESTS", "60/hour"),  # per user
    "tokens": env_rate("API_THROTTLE_TOKENS", "20/min"),  # sign-in attempts per client address
    # Wrong passwords (lineit_platform/throttles.py): per account and client address, per client
    # address for all accounts, and per account from everywhere (past it, the account is under attack).
    "login_failures": env_rate("API_THROTTLE_LOGIN_FAILURES", "10/hour"),
    "login_failures_address": env_rate("API_THROTTLE_LOGIN_FAILURES_ADDRESS", "50/hour"),
    "login_failures_account": env_rate("API_THROTTLE_LOGIN_FAILURES_ACCOUNT", "300/hour"),
    "signups": env_rate("API_THROTTLE_SIGNUPS", "20/hour"),  # per client address
    "password_resets": env_rate("API_THROTTLE_PASSWORD_RESETS", "10/hour"),  # per client address
    "reset_mails": env_rate("API_THROTTLE_RESET_MAILS", "3/hour"),  # per address typed, and per account
}


def env_networks(name: str) -> list[str]:
    """Comma-separated addresses or CIDR networks (``10.0.0.0/8,192.168.1.7``)."""
    import ipaddress

    entries = env_list(name, [])
    for entry in entries:
        try:
            ipaddress.ip_network(entry, strict=False)
        except ValueError:
            raise ImproperlyConfigured(f"{name} must list addresses or CIDR networks, not {entry!r}") from None
    return entries


# The proxies whose X-Forwarded-For is believed (lineit_platform/addresses.py); empty: none, the
# client is the peer of the connection. Set it to your reverse proxy's address when there is one.
TRUSTED_PROXIES = env_networks("TRUSTED_PROXIES")

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Token first: an anonymous request is told 401 with a WWW-Authenticate header.
        "rest_framework.authentication.TokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["lineit_platform.api.permissions.ReadOnlyOrAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": [
        "rest_framework.renderers.JSONRenderer",
        "rest_framework.renderers.BrowsableAPIRenderer",
    ],
    "DEFAULT_PARSER_CLASSES": [
        "lineit_platform.api.parsers.BoundedJSONParser",  # DRF's, with a bound on nesting
        "rest_framework.parsers.FormParser",
        "rest_framework.parsers.MultiPartParser",
    ],
    "DEFAULT_FILTER_BACKENDS": ["lineit_platform.api.filters.FilterBackend"],
    "DEFAULT_PAGINATION_CLASS": "lineit_platform.api.pagination.PagePagination",
    "PAGE_SIZE": API_PAGE_SIZE,
    "DEFAULT_SCHEMA_CLASS": "lineit_platform.api.schema.ErrorAwareAutoSchema",
    "EXCEPTION_HANDLER": "lineit_platform.api.errors.api_exception_handler",
    "TEST_REQUEST_DEFAULT_FORMAT": "json",
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Line-it Arena API",
    "DESCRIPTION": "Bots, versions, matches, replays and ratings of Line-it Arena. Guide: docs/api.md.",
    "VERSION": "1",
    "SERVE_INCLUDE_SCHEMA": False,
    "SCHEMA_PATH_PREFIX": "/api",
    "COMPONENT_SPLIT_REQUEST": True,
    # Swagger UI and Redoc from drf-spectacular-sidecar: served by this site, no CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "tournaments.models.Match.Status",
        "VersionStatusEnum": "bots.models.BotVersion.Status",
        "TournamentStatusEnum": "tournaments.models.Tournament.Status",
        # A recurring tournament takes two of the three ways to enter (check --deploy warned of the clash).
        "ParticipationEnum": "tournaments.models.Tournament.Participation",
        "RecurringParticipationEnum": ["all-active", "open"],
        # The events a user is told about by email and by webhook: one choice set, one name.
        "NotificationEventEnum": "notifications.models.NotificationEvent",
    },
}


# --- Web pages (lineit_platform/web, templates/) ----------------------------------------------

INSTALLED_APPS.append("lineit_platform.web")  # its template tags and static files (web/static/web/)
# runplatform serves the pages with gunicorn and no collectstatic step: let WhiteNoise find the
# files where they are. Set it to false once STATIC_ROOT is filled by collectstatic.
WHITENOISE_USE_FINDERS = env_bool("WHITENOISE_USE_FINDERS", True)
make_folder(STATIC_ROOT, "STATIC_ROOT")  # WhiteNoise warns on every start-up without it
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "my-bots"
LOGOUT_REDIRECT_URL = "home"
# Test matches requested on the pages share the API's quota (API_MATCH_QUOTA_*, API_MATCH_MAX_GAMES).

# --- Operations: heartbeats, metrics, logs, errors, Celery events (docs/deployment.md) ---------

# Each worker writes a heartbeat row this often (lineit_platform/heartbeats.py); one that missed
# WORKER_HEARTBEAT_MISSED beats counts as down in /health/.
WORKER_HEARTBEAT_SECONDS = env_float("WORKER_HEARTBEAT_SECONDS", 15.0, minimum=0.5)
WORKER_HEARTBEAT_MISSED = env_int("WORKER_HEARTBEAT_MISSED", 3, minimum=1, maximum=100)
# GET /metrics (Prometheus text format, lineit_platform/metrics.py) answers only a request that
# sends "Authorization: Bearer <METRICS_TOKEN>"; unset, /metrics is off (404).
METRICS_TOKEN = env_str("METRICS_TOKEN", "")
# Requests by view and status, from django-prometheus's two middlewares around all the others.
INSTALLED_APPS.append("django_prometheus")
MIDDLEWARE = [
    "django_prometheus.middleware.PrometheusBeforeMiddleware",
    *MIDDLEWARE,
    "django_prometheus.middleware.PrometheusAfterMiddleware",
]
# LOG_FORMAT=json: one JSON object a line (lineit_platform/logging_json.py), for a log shipper.
LOG_FORMAT = env_str("LOG_FORMAT", "text").strip().lower()
if LOG_FORMAT not in ("text", "json"):
    raise ImproperlyConfigured(f"LOG_FORMAT must be text or json, not {LOG_FORMAT!r}")
if LOG_FORMAT == "json":
    LOGGING["formatters"] = {"json": {"()": "lineit_platform.logging_json.JsonFormatter"}}
    LOGGING["handlers"]["console"]["formatter"] = "json"
# SENTRY_DSN: errors (and failed tasks) go to Sentry, or any server that speaks its protocol
# (lineit_platform/errors_sentry.py; sentry-sdk is imported only when it is set).
SENTRY_DSN = env_str("SENTRY_DSN", "")
SENTRY_ENVIRONMENT = env_str("SENTRY_ENVIRONMENT", "production")
SENTRY_TRACES_SAMPLE_RATE = env_float("SENTRY_TRACES_SAMPLE_RATE", 0.0)
if SENTRY_DSN:
    from lineit_platform.errors_sentry import sentry_init

    sentry_init(dsn=SENTRY_DSN, environment=SENTRY_ENVIRONMENT, traces_sample_rate=SENTRY_TRACES_SAMPLE_RATE)
# CACHE_URL (redis://host:6379/2): Django's default cache shared by every process, as the "api"
# cache is by API_CACHE_URL; per process (memory) without it. An outage is a miss (redis_cache.py).
CACHE_URL = env_str("CACHE_URL", "")
if CACHE_URL:
    CACHES["default"] = {
        "BACKEND": REDIS_CACHE_BACKEND,
        "LOCATION": CACHE_URL,
        "OPTIONS": {"socket_connect_timeout": API_CACHE_TIMEOUT_SECONDS, "socket_timeout": API_CACHE_TIMEOUT_SECONDS},
    }
# Task events for Flower (`celery -A lineit_platform.celery flower`): workers send an event as
# each task starts and ends, and the senders one as each is sent.
CELERY_WORKER_SEND_TASK_EVENTS = True
CELERY_TASK_SEND_SENT_EVENT = True
