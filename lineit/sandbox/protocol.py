"""The parent's side of the pipe protocol: length-prefixed frames with deadlines.

Requests (parent to host) are a request number and a marshal payload, replies (host to parent)
are one type byte, the number of the request answered and UTF-8 text; host.py documents the
format and holds its constants, which both ends use. Every frame is capped at 1 MiB and every
wait has a deadline, so a bot that writes garbage, writes half a frame, floods the pipe or
closes it costs the parent at most its deadline.
"""

from __future__ import annotations

import contextlib
import os
import select
import struct
import time
from collections.abc import Callable

from . import host
from .host import HEADER, MAX_FRAME, SEQUENCE

LENGTH = struct.Struct(">I")
REQUEST_HEAD = struct.Struct(">II")  # length, request number
REPLY_HEAD = struct.Struct(">IBI")  # length, kind, request number: the fixed start of a reply
MIN_REPLY = 1 + SEQUENCE  # a reply's payload holds at least its kind and its request number

# Reply kinds, as the byte values read from a reply
CONFINED = host.CONFINED[0]
READY = host.READY[0]
ACTION = host.ACTION[0]
ACK = host.ACK[0]
FAILURE = host.FAILURE[0]
CANARY = host.CANARY[0]


class ChannelTimeout(Exception):
    """The deadline passed before a whole frame was read or written."""


class ChannelClosed(Exception):
    """The host closed its end (usually: it died)."""


class ProtocolViolation(Exception):
    """The host sent something that is not a frame of the protocol."""


class Channel:
    """The parent's end. A decision costs one writev, one poll and one readv, and no large
    allocations: replies are read into one reusable buffer (grown up to one whole frame at most,
    and only when a frame does not fit)."""

    def __init__(self, to_host: int, from_host: int) -> None:
        self.to_host = to_host
        self.from_host = from_host
        self._set_buffer(bytearray(1 << 16))
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

    def _set_buffer(self, buffer: bytearray) -> None:
        self._buffer = buffer
        self._view = memoryview(buffer)
        self._whole = [self._view]  # readv's vector for an empty buffer, made once

    def has_unread(self) -> bool:
        """Whether the host wrote something nobody asked for (or closed its end)."""
        return self._end > self._start or bool(self._readable.poll(0))

    def send(self, payload: bytes, deadline: float, before_wait: Callable[[], None] | None = None) -> None:
        """Write the next request's frame. ``before_wait`` runs once if the pipe is full and the
        frame has to wait for the host to read (the player thaws a frozen host there)."""
        self.expected += 1
        header = REQUEST_HEAD.pack(SEQUENCE + len(payload), self.expected)
        try:
            written = os.writev(self.to_host, (header, payload))
        except BlockingIOError:
            written = 0
        except BrokenPipeError:
            raise ChannelClosed("the bot's end of the pipe is closed") from None
        if written < HEADER + SEQUENCE + len(payload):
            self._send_rest(memoryview(header + payload)[written:], deadline, before_wait)

    def _send_rest(self, data: memoryview, deadline: float, before_wait: Callable[[], None] | None) -> None:
        """The rest of a frame that did not fit the pipe at once."""
        while data:
            if before_wait is not None:
                before_wait()
                before_wait = None
            if not self._writable.poll(_milliseconds(deadline)):
                raise ChannelTimeout("the bot did not read its request")
            try:
                written = os.write(self.to_host, data)
            except BlockingIOError:
                continue
            except BrokenPipeError:
                raise ChannelClosed("the bot's end of the pipe is closed") from None
            data = data[written:]

    def receive(self, deadline: float) -> tuple[int, bytes]:
        """The next whole frame, as its kind and its text (still encoded), once it is known to
        answer the request expected."""
        if self._end == 0:  # the usual case: the reply arrives whole, in one read
            if not self._readable.poll(_milliseconds(deadline)):
                raise ChannelTimeout("no answer before the deadline")
            try:
                count = os.readv(self.from_host, self._whole)
            except BlockingIOError:
                return self._receive(deadline)
            if not count:
                raise ChannelClosed("the bot's end of the pipe is closed")
            self._end = count
            if count >= HEADER + MIN_REPLY:
                size, kind, sequence = REPLY_HEAD.unpack_from(self._buffer)
                if count == HEADER + size and sequence == self.expected:
                    self._end = 0
                    return kind, bytes(self._view[HEADER + MIN_REPLY : count])
        return self._receive(deadline)

    def _receive(self, deadline: float) -> tuple[int, bytes]:
        """receive(), whatever the buffer holds: parts of frames, several frames, garbage."""
        buffer = self._buffer
        while True:
            start = self._start
            available = self._end - start
            needed = HEADER
            if available >= HEADER:
                (size,) = LENGTH.unpack_from(buffer, start)
                if size == 0 or size > MAX_FRAME:
                    raise ProtocolViolation(f"a frame of {size} bytes (the limit is {MAX_FRAME})")
                needed = HEADER + size
                if available >= needed:
                    return self._take(start, start + needed)
            if start + needed > len(buffer):
                self._make_room(needed)
                buffer = self._buffer
            if not self._readable.poll(_milliseconds(deadline)):
                raise ChannelTimeout("no answer before the deadline")
            try:
                count = os.readv(self.from_host, self._whole if self._end == 0 else [self._view[self._end :]])
            except BlockingIOError:
                continue
            if not count:
                raise ChannelClosed("the bot's end of the pipe is closed")
            self._end += count

    def _take(self, start: int, end: int) -> tuple[int, bytes]:
        """The frame in _buffer[start:end], consumed, if it answers the request expected."""
        self._start = end
        if end == self._end:
            self._start = self._end = 0
        if end - start < HEADER + MIN_REPLY:
            raise ProtocolViolation("the bot wrote a frame that answers no request (out of turn)")
        _, kind, sequence = REPLY_HEAD.unpack_from(self._buffer, start)
        if sequence != self.expected:
            raise ProtocolViolation("the bot wrote a frame that answers no request (out of turn)")
        return kind, bytes(self._view[start + HEADER + MIN_REPLY : end])

    def _make_room(self, needed: int) -> None:
        """Move the unread bytes to the front, and grow the buffer to hold ``needed`` bytes (at
        most one maximal frame, since ``needed`` is checked against MAX_FRAME first)."""
        pending = bytes(self._view[self._start : self._end])
        if needed > len(self._buffer):
            self._set_buffer(bytearray(needed))
        self._buffer[: len(pending)] = pending
        self._start, self._end = 0, len(pending)

    def close(self) -> None:
        for fd in (self.to_host, self.from_host):
            with contextlib.suppress(OSError):
                os.close(fd)


def describe(kind: int, text: bytes) -> str:
    """A reply shortened for an error message."""
    return repr(bytes([kind]) + text[:39])


def _milliseconds(deadline: float) -> int:
    remaining = deadline - time.monotonic()
    return max(0, int(remaining * 1000 + 0.999))
