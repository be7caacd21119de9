"""The one error vocabulary of the services: bad input gets a clear message and changes nothing."""

from __future__ import annotations

from typing import Any


class ApplicationError(Exception):
    """A request the platform refuses, with a message meant for the person who made it."""

    code = "invalid"

    def __init__(self, message: str, *, extra: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.extra = extra or {}


class NotFound(ApplicationError):
    code = "not_found"


class Forbidden(ApplicationError):
    code = "forbidden"


class Conflict(ApplicationError):
    code = "conflict"


class Unavailable(ApplicationError):
    """Something the platform depends on (the bot storage) does not answer now: try again later."""

    code = "unavailable"
