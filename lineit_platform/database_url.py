"""``DATABASE_URL`` read into one entry of Django's ``DATABASES``.

- ``postgres://user:password@host:port/name?sslmode=require`` (also ``postgresql://``,
  ``pgsql://``). Every part may be percent-encoded; the host keeps its case, so a Unix socket
  folder can be given as the host (``postgres://user@%2Fvar%2Frun%2Fpostgresql/name``), as can an
  IPv6 address in brackets. No host (``postgres:///name``) is libpq's default socket. Query
  parameters are passed to psycopg as they are (``connect_timeout``, ``sslmode``,
  ``host=/socket/folder``...), except ``pool`` and ``server_side_binding``, Django's own options,
  read as booleans.
- ``sqlite:///relative/path``, ``sqlite:////absolute/path``, ``sqlite://`` (the default file) or
  ``sqlite://:memory:``.

A URL this cannot read stops the process naming ``DATABASE_URL``, its password left out of the
message. The test database of PostgreSQL is ``test_<name>`` (pytest-django creates and drops it).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

from django.core.exceptions import ImproperlyConfigured

POSTGRES_SCHEMES = ("postgres", "postgresql", "pgsql")
_BOOLEAN_OPTIONS = {"pool", "server_side_binding"}
_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off"}


def redacted(url: str) -> str:
    """The URL with its password replaced by ``***`` (for messages)."""
    return re.sub(r"^([a-z0-9+.-]+://[^:/?#@]*):[^/?#]*@", r"\1:***@", url, flags=re.IGNORECASE)


def _refuse(url: str, why: str) -> ImproperlyConfigured:
    return ImproperlyConfigured(f"DATABASE_URL {why}: {redacted(url)!r}")


def database_from_url(url: str, *, default_sqlite: Path, conn_max_age: int = 0) -> dict[str, Any]:
    """One ``DATABASES`` entry. ``conn_max_age`` seconds a PostgreSQL connection is kept; when it
    is kept, Django checks it is still alive before reusing it (``CONN_HEALTH_CHECKS``)."""
    scheme, separator, rest = url.partition("://")
    scheme = scheme.lower()
    if not separator:
        raise _refuse(url, "must look like postgres://user:password@host:port/name or sqlite:///path")
    if scheme == "sqlite":
        return {"ENGINE": "django.db.backends.sqlite3", "NAME": _sqlite_name(url, rest, default_sqlite)}
    if scheme not in POSTGRES_SCHEMES:
        raise _refuse(url, "must start with postgres:// or sqlite://")
    return _postgres(url, conn_max_age)


def _sqlite_name(url: str, rest: str, default_sqlite: Path) -> str:
    location, _, query = rest.partition("?")
    if query:
        raise _refuse(url, "takes no query parameters for SQLite")
    if location in (":memory:", "/:memory:"):
        return ":memory:"
    if location and not location.startswith("/"):
        raise _refuse(url, "names a host for SQLite; write sqlite:///relative/path or sqlite:////absolute/path")
    path = unquote(location[1:])  # sqlite:///relative -> relative, sqlite:////absolute -> /absolute
    return path or str(default_sqlite)


def _postgres(url: str, conn_max_age: int) -> dict[str, Any]:
    try:
        parts = urlsplit(url)
    except ValueError as error:  # e.g. an unclosed IPv6 bracket
        raise _refuse(url, f"cannot be read ({error})") from None
    if parts.fragment:
        raise _refuse(url, "has a fragment (#...); percent-encode '#' as %23")
    credentials, _, location = parts.netloc.rpartition("@")
    user, _, password = credentials.partition(":")
    host, port = _host_and_port(url, location)
    name = unquote(parts.path[1:] if parts.path.startswith("/") else parts.path)
    if not name:
        raise _refuse(url, "names no database")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": name,
        "USER": unquote(user),
        "PASSWORD": unquote(password),
        "HOST": host,
        "PORT": port,
        "OPTIONS": _options(url, parts.query),
        "CONN_MAX_AGE": conn_max_age,
        # A kept connection may have died (a server restart, a failover, an idle timeout): Django
        # then checks it before the first query of a request and opens a new one instead of failing.
        "CONN_HEALTH_CHECKS": conn_max_age > 0,
        "TEST": {"NAME": f"test_{name}"},
    }


def _host_and_port(url: str, location: str) -> tuple[str, str]:
    """``host``, ``host:port``, ``[v6]:port`` or a percent-encoded socket folder, case kept."""
    if location.startswith("["):
        host, bracket, after = location[1:].partition("]")
        if not bracket or (after and not after.startswith(":")):
            raise _refuse(url, "has an IPv6 host without its closing ']'")
        port = after[1:]
    else:
        host, _, port = location.partition(":")
    if port and not (port.isascii() and port.isdigit() and 0 < int(port) < 65536):
        raise _refuse(url, f"has a port that is not a number from 1 to 65535 ({port!r})")
    return unquote(host), port


def _options(url: str, query: str) -> dict[str, Any]:
    options: dict[str, Any] = {}
    try:
        pairs = parse_qsl(query, keep_blank_values=True, strict_parsing=bool(query))
    except ValueError:
        raise _refuse(url, "has a query string that is not name=value pairs") from None
    for key, value in pairs:
        if key in _BOOLEAN_OPTIONS:
            if value.lower() not in _TRUE | _FALSE:
                raise _refuse(url, f"has {key}={value!r}; it must be true or false")
            options[key] = value.lower() in _TRUE
        else:
            options[key] = value
    return options
