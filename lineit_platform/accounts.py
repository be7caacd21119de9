"""Account writes the two faces share: API tokens, the one place that makes, replaces and
revokes them. The API's token endpoints (api/views/auth.py) and the token page
(web/views/account.py) both come here, so neither face imports the other.

A user has at most one token (a unique column), so two simultaneous first visits of the token
page, or two simultaneous rotations (a double click, two scripts), would both try to insert
one; the loser's insert failed with a server error. Here every change that makes a token happens
under a lock on the user's row, so they take turns: the first makes the token, the next finds it
(or replaces it in turn). A revocation only deletes, which two at once can do without a lock.
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from rest_framework.authtoken.models import Token


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
