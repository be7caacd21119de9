"""Time and memory limits of a match, referee-measured. Documented in docs/bot-interface.md."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

DEFAULT_MOVE_SECONDS = 0.5
DEFAULT_BANK_SECONDS = 30.0
DEFAULT_MOVE_TIMEOUT_SECONDS = 5.0
DEFAULT_STARTUP_SECONDS = 10.0
DEFAULT_MEMORY_MB = 512
DEFAULT_MAX_FAILURES = 3


@dataclass(frozen=True)
class Limits:
    """How long and how much a bot may think.

    Each decision may use ``move_seconds`` for free; time beyond that is drawn from a per-match
    ``bank_seconds`` (Kaggle's "overage"). A single decision never gets more than
    ``move_timeout_seconds``. Loading the bot and answering ``start_game`` share
    ``startup_seconds``. ``max_failures`` failed games stop a bot for the rest of the match.
    """

    move_seconds: float = DEFAULT_MOVE_SECONDS
    bank_seconds: float = DEFAULT_BANK_SECONDS
    move_timeout_seconds: float = DEFAULT_MOVE_TIMEOUT_SECONDS
    startup_seconds: float = DEFAULT_STARTUP_SECONDS
    memory_mb: int = DEFAULT_MEMORY_MB
    max_failures: int = DEFAULT_MAX_FAILURES

    def __post_init__(self) -> None:
        for name in ("move_seconds", "bank_seconds", "move_timeout_seconds", "startup_seconds"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or isinstance(value, bool) or not 0 <= value <= 3600:
                raise ValueError(f"{name} must be a number of seconds from 0 to 3600, not {value!r}")
        if not isinstance(self.memory_mb, int) or not 64 <= self.memory_mb <= 16384:
            raise ValueError(f"memory_mb must be an integer from 64 to 16384, not {self.memory_mb!r}")
        if not isinstance(self.max_failures, int) or not 1 <= self.max_failures <= 1000:
            raise ValueError(f"max_failures must be an integer from 1 to 1000, not {self.max_failures!r}")
        if self.move_seconds > self.move_timeout_seconds:
            raise ValueError("move_seconds cannot exceed move_timeout_seconds")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any] | None) -> Limits:
        data = dict(data or {})
        unknown = set(data) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown limits: {', '.join(sorted(unknown))}")
        return cls(**data)


class Clock:
    """One bot's clock over a match: the per-move allowance and the shared bank."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self.bank = limits.bank_seconds

    def deadline(self) -> tuple[float, bool]:
        """Seconds this decision may take, and whether the hard per-move cap is what binds."""
        budget = self.limits.move_seconds + self.bank
        cap = self.limits.move_timeout_seconds
        return (cap, True) if cap <= budget else (budget, False)

    def spend(self, seconds: float) -> None:
        overage = seconds - self.limits.move_seconds
        if overage > 0:
            self.bank = max(0.0, self.bank - overage)
