"""A one-line progress bar on stderr for long matches, with no dependency."""

from __future__ import annotations

import time
from typing import TextIO


def _clock(seconds: float) -> str:
    seconds = int(seconds)
    return f"{seconds // 60}:{seconds % 60:02d}"


class Progress:
    """``[#########.........] 120/200 games  0:41 left``, redrawn in place with a carriage return.

    Disabled (every call does nothing) unless ``enabled``: the caller decides, usually when the
    stream is a terminal or the user asked for it.
    """

    def __init__(self, total: int, stream: TextIO, *, enabled: bool, width: int = 30) -> None:
        self.total = max(total, 1)
        self.stream = stream
        self.enabled = enabled
        self.width = width
        self.started = time.monotonic()
        self._shown = ""

    def update(self, done: int, note: str = "") -> None:
        if not self.enabled:
            return
        filled = self.width * done // self.total
        bar = "#" * filled + "." * (self.width - filled)
        elapsed = time.monotonic() - self.started
        left = f"  {_clock(elapsed * (self.total - done) / done)} left" if 0 < done < self.total else ""
        text = f"[{bar}] {done}/{self.total} games{left}{'  ' + note if note else ''}"
        if text != self._shown:
            padding = " " * max(0, len(self._shown) - len(text))
            self.stream.write(f"\r{text}{padding}")
            self.stream.flush()
            self._shown = text

    def finish(self) -> None:
        """End the bar's line, so what follows starts on a fresh one."""
        if self.enabled and self._shown:
            self.stream.write("\n")
            self.stream.flush()
            self._shown = ""
