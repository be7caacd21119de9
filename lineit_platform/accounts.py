"""Account writes the two faces share: API tokens, the one place that makes, replaces and
revokes them; the keys that keep usernames apart from their look-alikes; what a password reset
ends. The API's token endpoints (api/views/auth.py) and the token page (web/views/account.py)
both come here, so neither face imports the other.

**Look-alike names.** A user's name has two keys (lineit_platform/confusables.py), kept in
``UsernameKey`` with unique columns: ``username_check`` refuses a name whose keys another user
holds, with a clear message (the sign-up form, the admin's forms), and ``username_keys_write``
writes them whenever a user's name is saved, from any face (a receiver of the user model's
post_save, connected by PlatformConfig.ready: the admin, createsuperuser, the built-in bots'
system user), so the database refuses a look-alike that two simultaneous sign-ups would make.

A user has at most one token (a unique column), so two simultaneous first visits of the token
page, or two simultaneous rotations (a double click, two scripts), would both try to insert
one; the loser's insert failed with a server error. Here every change that makes a token happens
under a lock on the user's row, so they take turns: the first makes the token, the next finds it
(or replaces it in turn). A revocation only deletes, which two at once can do without a lock.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.contrib.sessions.models import Session
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models.signals import post_save
from django.utils import timezone
from rest_framework.authtoken.models import Token

from lineit_platform.confusables import folded_key, name_key
from lineit_platform.models import UsernameKey

LOOK_ALIKE = (
    "This name looks like the name of another user (a letter of another alphabet, a digit for a "
    "letter, or only the case differs); choose another."
)


def _lock(user: AbstractBaseUser) -> None:
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()


@transaction.atomic
def token_for(*, user: AbstractBaseUser) -> Token:
    """The user's token, made on first use."""
    _lock(user)
    token, _ = Token.objects.get_or_create(user=user)
    return token


@transaction.atomic
def token_rotate(*, user: AbstractBaseUser, replacing: str | None = None) -> Token | None:
    """A new token in place of the user's current one, which stops working at once. With
    ``replacing`` (the token the request was signed in with), None when that token is no longer
    the user's: a token replaced by a simultaneous rotation may not make another."""
    _lock(user)
    if replacing is not None and not Token.objects.filter(user=user, key=replacing).exists():
        return None
    Token.objects.filter(user=user).delete()
    return Token.objects.create(user=user)


def token_revoke(*, user: AbstractBaseUser) -> None:
    """The user's token stops working at once; the next token_for makes a new one."""
    Token.objects.filter(user=user).delete()


# --- Look-alike usernames ---------------------------------------------------------------------


def username_check(username: str, *, user: AbstractBaseUser | None = None) -> None:
    """ValidationError when another user than ``user`` has a name a reader could take for it."""
    others = UsernameKey.objects.exclude(user_id=getattr(user, "pk", None))
    if others.filter(name_key=name_key(username)).exists() or others.filter(folded_key=folded_key(username)).exists():
        raise ValidationError(LOOK_ALIKE, code="look_alike")


def username_keys_write(*, user: AbstractBaseUser) -> None:
    """The keys of the user's name, written when it was set or changed (IntegrityError, in the
    caller's transaction, when another user holds one of them)."""
    username = user.get_username()
    if UsernameKey.objects.filter(user_id=user.pk, username=username).exists():
        return
    UsernameKey.objects.update_or_create(
        user_id=user.pk,
        defaults={"username": username, "name_key": name_key(username), "folded_key": folded_key(username)},
    )


def _user_saved(sender: Any, instance: AbstractBaseUser, update_fields: Any = None, **_: Any) -> None:
    if update_fields is None or "username" in update_fields:
        username_keys_write(user=instance)


def connect_receivers() -> None:
    """Called once by PlatformConfig.ready()."""
    post_save.connect(_user_saved, sender=get_user_model(), dispatch_uid="lineit_platform.accounts.user_saved")


# --- A password reset ends every way in ----------------------------------------------------------


@transaction.atomic
def password_reset_completed(*, user: AbstractBaseUser) -> int:
    """The user chose a new password through a reset link: whoever had their old one, or a token
    made with it, is out. The API token is revoked, and every session of theirs ends (the
    database's session rows are deleted; with another session store, Django's check of the
    password's hash in each session ends them at their next request). Returns the sessions ended."""
    token_revoke(user=user)
    if settings.SESSION_ENGINE != "django.contrib.sessions.backends.db":
        return 0
    ended = [
        session.pk
        for session in Session.objects.filter(expire_date__gt=timezone.now()).iterator()
        if str(session.get_decoded().get("_auth_user_id")) == str(user.pk)
    ]
    Session.objects.filter(pk__in=ended).delete()
    return len(ended)
