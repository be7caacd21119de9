"""Who may do what, decided here and nowhere else in the API.

Anyone reads public data (bots, versions, matches, games, replays, ratings). Signed-in users
create bots and request matches. Only a bot's owner uploads its versions, downloads its source,
and reads its failure logs (stderr tails) and validation stderr; staff may do everything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rest_framework.permissions import SAFE_METHODS, BasePermission

from bots.models import Bot, BotVersion

if TYPE_CHECKING:  # rest_framework.views imports this module through the settings
    from rest_framework.request import Request
    from rest_framework.views import APIView


def may_manage(user: Any, owner_id: int | None) -> bool:
    """The one ownership rule: staff, or the user who owns the bot."""
    if user is None or not getattr(user, "is_authenticated", False):
        return False
    return bool(user.is_staff) or (owner_id is not None and user.pk == owner_id)


def owner_id_of(obj: Any) -> int | None:
    if isinstance(obj, Bot):
        return obj.owner_id
    if isinstance(obj, BotVersion):
        return obj.bot.owner_id
    raise TypeError(f"no owner rule for {type(obj).__name__}")


def may_manage_object(user: Any, obj: Any) -> bool:
    return may_manage(user, owner_id_of(obj))


class ReadOnlyOrAuthenticated(BasePermission):
    """The default: reading is public, writing needs a signed-in user."""

    def has_permission(self, request: Request, view: APIView) -> bool:
        return request.method in SAFE_METHODS or bool(request.user and request.user.is_authenticated)


class OwnerOrStaff(BasePermission):
    """For operations on a bot or a version that only its owner (or staff) may perform."""

    message = "Only the bot's owner (or staff) may do this."

    def has_permission(self, request: Request, view: APIView) -> bool:
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request: Request, view: APIView, obj: Any) -> bool:
        return may_manage_object(request.user, obj)
