"""Typed errors of the engine. What a platform does about them lives in the platform."""

from __future__ import annotations


class EngineError(Exception):
    """Base class of every error the engine raises on purpose."""


class IllegalAction(EngineError):
    """An action that is not legal in the current state; the message says why."""


class InvalidSetup(EngineError):
    """A game that cannot be created: bad player count, ruleset or deck."""


class ReplayError(EngineError):
    """A replay document that is malformed or does not verify."""


class InvalidSeat(EngineError):
    """A seat number that does not exist in this game."""
