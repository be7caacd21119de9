"""The parent's side of the pipe protocol: length-prefixed frames with deadlines.

Requests (parent to host) are marshal payloads, replies (host to parent) are one type byte and
UTF-8 text; host.py documents the format. Every frame is capped at 1 MiB and every wait has a
deadline, so a bot that writes garbage, writes half a frame, floods the pipe or closes it costs
the parent at most its deadline.
"""

from __future__ import annotations

import contextlib
import os
import select
import time
from collections.abc import Callable

MAX_FRAME = 1 << 20
HEADER = 4
SEQUENCE = 4  # bytes of the request number after a host frame's kind byte


class ChannelTimeout(Exception):
    """The deadline passed before a whole frame was read or written."""


class ChannelClosed(Exception):
    """The host closed its end (usually: it died)."""


class ProtocolViolation(Exception):
    """The host sent something that is not a frame of the protocol."""


class Channel:
    """The parent's end. Replies are read into one reusable buffer (grown up to one whole frame
    at most), so a decision costs one write, one poll and one read, and no large allocations."""

    def __init__(self, to_host: int, from_host: int) -> None:
        self.to_host = to_host
        self.from_host = from_host
        self._buffer = bytearray(1 << 16)
        self._start = 0  # unread bytes are _buffer[_start:_end]
        self._end = 0
        self._readable = select.poll()
        self._readable.register(from_host, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(to_host, select.POLLOUT)
        os.set_blocking(from_host, False)
        # Every frame from the host carries, after its kind byte, the number of the request it
        # answers (0 before the first request). A frame a bot's thread forges out of turn does
        # not, so it can never be taken for the answer to a later request.
        self.expected = 0

    def has_unread(self) -> bool:
        """Whether the host wrote something nobody asked for (or closed its end)."""
        return self._end > self._start or bool(self._readable.poll(0))

    def send(self, payload: bytes, deadline: float, before_wait: Callable[[], None] | None = None) -> None:
        """Write one frame. ``before_wait`` runs once if the pipe is full and the frame has to
        wait for the host to read (the player thaws a frozen host there)."""
        data = len(payload).to_bytes(HEADER, "big") + payload
        while data:
            try:
                written = os.write(self.to_host, data)
            except BlockingIOError:
                if before_wait is not None:
                    before_wait()
                    before_wait = None
                if not self._writable.poll(_milliseconds(deadline)):
                    raise ChannelTimeout("the bot did not read its request") from None
                continue
            except BrokenPipeError:
                raise ChannelClosed("the bot's end of the pipe is closed") from None
            data = data[written:]

    def receive(self, deadline: float) -> bytes:
        """One whole frame's payload."""
        while True:
            available = self._end - self._start
            needed = HEADER
            if available >= HEADER:
                size = int.from_bytes(self._buffer[self._start : self._start + HEADER], "big")
                if size == 0 or size > MAX_FRAME:
                    raise ProtocolViolation(f"a frame of {size} bytes (the limit is {MAX_FRAME})")
                needed = HEADER + size
                if available >= needed:
                    begin = self._start + HEADER
                    payload = bytes(self._buffer[begin : begin + size])
                    self._start = begin + size
                    if self._start == self._end:
                        self._start = self._end = 0
                    return self._answer(payload)
            if self._start + needed > len(self._buffer):
                self._make_room(needed)
            if not self._readable.poll(_milliseconds(deadline)):
                raise ChannelTimeout("no answer before the deadline")
            try:
                with memoryview(self._buffer) as view:
                    count = os.readv(self.from_host, [view[self._end :]])
            except BlockingIOError:
                continue
            if not count:
                raise ChannelClosed("the bot's end of the pipe is closed")
            self._end += count

    def _answer(self, payload: bytes) -> bytes:
        """The frame without its request number, once that number is the one expected."""
        if len(payload) < 1 + SEQUENCE or int.from_bytes(payload[1 : 1 + SEQUENCE], "big") != self.expected:
            raise ProtocolViolation("the bot wrote a frame that answers no request (out of turn)")
        return payload[:1] + payload[1 + SEQUENCE :]

    def _make_room(self, needed: int) -> None:
        """Move the unread bytes to the front, and grow the buffer to hold ``needed`` bytes (at
        most one maximal frame, since ``needed`` is checked against MAX_FRAME first)."""
        pending = bytes(self._buffer[self._start : self._end])
        if needed > len(self._buffer):
            self._buffer = bytearray(needed)
        self._buffer[: len(pending)] = pending
        self._start, self._end = 0, len(pending)

    def close(self) -> None:
        for fd in (self.to_host, self.from_host):
            with contextlib.suppress(OSError):
                os.close(fd)


def _milliseconds(deadline: float) -> int:
    remaining = deadline - time.monotonic()
    return max(0, int(remaining * 1000 + 0.999))
