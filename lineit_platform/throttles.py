"""Rate limits: the one throttle service of the API and the pages.

Every operation that costs the platform work or guards an account is counted here, whichever face
it came through (the DRF views call it through ``lineit_platform.api.throttling``, the pages
directly):

================  ========================================  ==============================
scope             what is counted                           counted per
================  ========================================  ==============================
bots              new bots                                  user
uploads           uploads of a bot version                  user
match_requests    requests of a test (unranked) match       user
tokens            sign-ins (API token, login page) and      client address
                  token rotations (API, token page)
login_failures    wrong passwords for one account           account and client address
login_failures_   wrong passwords for any accounts          client address
address
login_failures_   wrong passwords for one account, from     account (the username)
account           anywhere: past it the account is "under
                  attack" (see below), never locked
signups           sign-up form posts                        client address
password_resets   password reset requests                   client address
reset_mails       password reset mails                      the address typed, and each
                                                            account it would go to
================  ========================================  ==============================

Sign-in: throttle the guesser, not the victim. Counting wrong passwords per account alone (as
before) let anyone lock anyone out: 30 wrong passwords from one address refused the account for
an hour, right password included. OWASP's Authentication Cheat Sheet warns that a per-account
lock-out is a denial of service against the account's owner and suggests locking out the pair
(account, client) instead, with limits per client against spraying, and a way to tell known
clients from unknown ones (its "device cookies" page). So:

* a client address may make ``login_failures`` wrong guesses for one account (10/hour) and
  ``login_failures_address`` for all accounts together (50/hour), besides ``tokens`` attempts
  (20/min); past them that client, and only it, is refused until its window ends, right password
  or not (a guesser learns nothing from the answer);
* an account is never locked. When it has had more than ``login_failures_account`` wrong
  passwords from all addresses (300/hour, 30 clients' worth: a distributed attack), an address
  that never signed in to it (in the last 30 days) may make only ``UNDER_ATTACK_FAILURES`` (2)
  wrong guesses for it in its window instead of 10; addresses it signed in from keep theirs.

A client that has not been guessing therefore always gets in with the right password, whatever
others do: the most an attacker can impose on the owner is what it imposes from the owner's own
address (a shared NAT: that address refused for the account for at most one window, an hour).
The counts are taken before the password is checked (so simultaneous guesses cannot all pass the
check) and given back when it was right. django-axes, the maintained library for this, is not
used: it keeps a second store of attempts with its own idea of the client's address (the platform
has one, behind trusted proxies), and its single failure limit cannot express "10 per client,
2 per unknown client while the account is under attack"; the counting here is the same
atomic window as every other limit of the platform.

Rates come from ``settings.THROTTLE_RATES`` (the ``API_THROTTLE_*`` variables), addresses from
``lineit_platform.addresses`` (``TRUSTED_PROXIES``). The quota of pending test matches is not a
rate: it must hold under concurrency, so the database enforces it (a lock on the user's row, in
``tournaments.services.match_requests``).

Counters live in the cache ``api`` (``API_CACHE_URL``): Redis wherever more than one process
serves requests, or each process would count on its own. A window opens at the first counted
request and lasts one period; its counter grows with one atomic ``incr``, so simultaneous
requests, from threads or from processes sharing the cache, cannot both take the last place.
Counting goes through Django's cache API only: a cache that cannot answer lets the request pass
(a throttle never makes a write fail).
"""

from __future__ import annotations

import contextlib
import hashlib
import math
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate as django_authenticate
from django.core.cache import caches

from lineit_platform.addresses import client_address
from lineit_platform.errors import ApplicationError

BOTS = "bots"
UPLOADS = "uploads"
MATCH_REQUESTS = "match_requests"
TOKENS = "tokens"
LOGIN_FAILURES = "login_failures"
LOGIN_FAILURES_ADDRESS = "login_failures_address"
LOGIN_FAILURES_ACCOUNT = "login_failures_account"
SIGNUPS = "signups"
PASSWORD_RESETS = "password_resets"
RESET_MAILS = "reset_mails"

PERIODS = {
    "s": ("second", 1),
    "sec": ("second", 1),
    "second": ("second", 1),
    "m": ("minute", 60),
    "min": ("minute", 60),
    "minute": ("minute", 60),
    "h": ("hour", 3600),
    "hour": ("hour", 3600),
    "d": ("day", 86400),
    "day": ("day", 86400),
}
# A window's counter outlives its window a little, so it never expires while still counted.
_GRACE_SECONDS = 60

_WHAT = {
    BOTS: "new bots",
    UPLOADS: "uploads",
    MATCH_REQUESTS: "test match requests",
    TOKENS: "sign-in attempts from your address",
    LOGIN_FAILURES: "failed sign-ins to this account from your address",
    LOGIN_FAILURES_ADDRESS: "failed sign-ins from your address",
    SIGNUPS: "sign-ups from your address",
    PASSWORD_RESETS: "password reset requests from your address",
    RESET_MAILS: "password reset mails to this address",
}


# Cache backends that each process keeps for itself (or not at all): counts there are not shared.
PER_PROCESS_CACHES = frozenset({"LocMemCache", "DummyCache"})


def counter_cache_backend() -> str:
    """The class name of the cache the counters live in (``RedisCache``, ``LocMemCache``...)."""
    return str(settings.CACHES.get("api", {}).get("BACKEND", "")).rsplit(".", 1)[-1]


def counters_shared() -> bool:
    """Whether every process that serves requests sees the same counts."""
    return counter_cache_backend() not in PER_PROCESS_CACHES


class RateLimited(ApplicationError):
    """Too many requests of one kind: a 429 with ``Retry-After`` in the API, on the pages a form
    error with status 429. ``retry_after`` is in whole seconds."""

    code = "throttled"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message, extra={"retry_after": retry_after})
        self.retry_after = retry_after


@dataclass(frozen=True)
class Rate:
    limit: int
    period_name: str
    seconds: int


def parse_rate(text: str) -> Rate:
    """``20/hour``, ``5/min``, ``100/day``..."""
    number, _, period = text.strip().partition("/")
    if period not in PERIODS or not (number.isascii() and number.isdigit()) or int(number) < 1:
        raise ValueError(f"a rate looks like 20/hour (period s, min, hour or day), not {text!r}")
    name, seconds = PERIODS[period]
    return Rate(int(number), name, seconds)


def rate_of(scope: str) -> Rate:
    return parse_rate(settings.THROTTLE_RATES[scope])


@dataclass(frozen=True)
class Hit:
    """One counted request: the counter it went into and the count it made there."""

    key: str
    count: int
    retry_after: int


def _counted(scope: str, ident: str, rate: Rate, cache: Any) -> Hit:
    base = f"throttle:{scope}:{ident}"
    now = time.time()
    started = cache.get_or_set(f"{base}:window", now, timeout=rate.seconds)
    if not isinstance(started, int | float):  # the cache did not answer
        started = now
    key = f"{base}:{started:.6f}"
    cache.add(key, 0, timeout=rate.seconds + _GRACE_SECONDS)
    try:
        count = cache.incr(key)
    except ValueError:  # the counter is gone (evicted, or the cache did not answer): this one alone
        count = 1
    retry_after = max(1, math.ceil(started + rate.seconds - now))
    return Hit(key=key, count=count if isinstance(count, int) else 1, retry_after=retry_after)


def hit(scope: str, ident: str, *, cache: Any = None) -> Hit:
    """Count one request of ``scope`` by ``ident``; raise RateLimited when it is one too many."""
    rate = rate_of(scope)
    counted = _counted(scope, ident, rate, caches["api"] if cache is None else cache)
    if counted.count > rate.limit:
        raise RateLimited(
            f"Too many {_WHAT.get(scope, scope)}: at most {rate.limit} per {rate.period_name}. "
            f"Try again in {_duration(counted.retry_after)}.",
            retry_after=counted.retry_after,
        )
    return counted


def give_back(counted: Hit, *, cache: Any = None) -> None:
    """Uncount a request counted by ``hit`` (a sign-in that turned out right is no failure)."""
    with contextlib.suppress(ValueError):  # the window is gone already
        (caches["api"] if cache is None else cache).decr(counted.key)


def _duration(seconds: int) -> str:
    if seconds < 120:
        return f"{seconds} seconds"
    if seconds < 7200:
        return f"{math.ceil(seconds / 60)} minutes"
    return f"{math.ceil(seconds / 3600)} hours"


def user_ident(user: Any) -> str:
    return f"user-{user.pk}"


def address_ident(request: Any) -> str:
    return f"address-{client_address(request)}"


def requester_ident(request: Any) -> str:
    """A signed-in user is counted as themself wherever they come from; anyone else by address."""
    user = getattr(request, "user", None)
    if user is not None and user.is_authenticated:
        return user_ident(user)
    return address_ident(request)


def account_ident(username: str) -> str:
    # Usernames are case-insensitive at sign-in for guessing purposes; hashed to a safe cache key.
    return "account-" + hashlib.sha256(username.strip().casefold().encode()).hexdigest()[:32]


def bot_create_hit(request: Any) -> None:
    hit(BOTS, requester_ident(request))


def upload_hit(request: Any) -> None:
    hit(UPLOADS, requester_ident(request))


def match_request_hit(request: Any) -> None:
    hit(MATCH_REQUESTS, requester_ident(request))


def signup_hit(request: Any) -> None:
    hit(SIGNUPS, address_ident(request))


def token_hit(request: Any) -> None:
    hit(TOKENS, address_ident(request))


# While an account is under attack: the wrong guesses for it an address that never signed in to it may make.
UNDER_ATTACK_FAILURES = 2
# How long an address a user signed in from stays known for that account.
KNOWN_CLIENT_SECONDS = 30 * 86400


def _known_key(account: str, address: str) -> str:
    return f"throttle:known:{account}:{address}"


def authenticate(request: Any, *, username: str, password: str) -> Any:
    """Django's ``authenticate`` behind the sign-in limits of the module's docstring: attempts and
    wrong passwords per client address, wrong passwords per (account, address), fewer for an
    unknown address while the account is under attack. The API's token view and the login page
    both sign in through here. Returns the user, or None for a wrong username or password."""
    token_hit(request)
    account, address = account_ident(username), address_ident(request)
    pair = hit(LOGIN_FAILURES, f"{account}:{address}")
    try:
        spread = hit(LOGIN_FAILURES_ADDRESS, address)
    except RateLimited:
        give_back(pair)
        raise
    cache = caches["api"]
    everywhere = _counted(LOGIN_FAILURES_ACCOUNT, account, rate_of(LOGIN_FAILURES_ACCOUNT), cache)
    if (
        everywhere.count > rate_of(LOGIN_FAILURES_ACCOUNT).limit
        and pair.count > UNDER_ATTACK_FAILURES
        and not cache.get(_known_key(account, address))
    ):
        give_back(spread)
        give_back(everywhere)
        raise RateLimited(
            "Too many failed sign-ins to this account from many addresses: from an address it has not "
            f"signed in from, at most {UNDER_ATTACK_FAILURES} for now. Try again in {_duration(pair.retry_after)}.",
            retry_after=pair.retry_after,
        )
    user = django_authenticate(request, username=username, password=password)
    if user is not None:
        for counted in (pair, spread, everywhere):
            give_back(counted)
        with contextlib.suppress(Exception):  # a cache that does not answer: the address stays unknown
            cache.set(_known_key(account, address), 1, timeout=KNOWN_CLIENT_SECONDS)
    return user


def password_reset_hit(request: Any, *, email: str) -> None:
    """A password reset request: counted per client address and per address typed (whether an
    account has it or not, so the answer tells nothing of who has an account); RateLimited when
    either is one too many."""
    hit(PASSWORD_RESETS, address_ident(request))
    hit(RESET_MAILS, "email-" + hashlib.sha256(email.strip().casefold().encode()).hexdigest()[:32])


def reset_mail_allowed(user: Any) -> bool:
    """Whether one more reset mail may go to this account now (counted when it may). A refusal is
    silent: the page answers as for any address, and says nothing of the account."""
    try:
        hit(RESET_MAILS, user_ident(user))
    except RateLimited:
        return False
    return True
