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

MAX_FRAME = 1 << 20
HEADER = 4


class ChannelTimeout(Exception):
    """The deadline passed before a whole frame was read or written."""


class ChannelClosed(Exception):
    """The host closed its end (usually: it died)."""


class ProtocolViolation(Exception):
    """The host sent something that is not a frame of the protocol."""


class Channel:
    def __init__(self, to_host: int, from_host: int) -> None:
        self.to_host = to_host
        self.from_host = from_host
        self._buffer = bytearray()
        self._readable = select.poll()
        self._readable.register(from_host, select.POLLIN)
        self._writable = select.poll()
        self._writable.register(to_host, select.POLLOUT)
        os.set_blocking(from_host, False)

    def has_unread(self) -> bool:
        """Whether the host wrote something nobody asked for (or closed its end)."""
        return bool(self._buffer) or bool(self._readable.poll(0))

    def send(self, payload: bytes, deadline: float) -> None:
        data = memoryview(len(payload).to_bytes(HEADER, "big") + payload)
        while data:
            try:
                written = os.write(self.to_host, data)
            except BlockingIOError:
                if not self._writable.poll(_milliseconds(deadline)):
                    raise ChannelTimeout("the bot did not read its request") from None
                continue
            except BrokenPipeError:
                raise ChannelClosed("the bot's end of the pipe is closed") from None
            data = data[written:]

    def receive(self, deadline: float) -> bytes:
        """One whole frame's payload."""
        while True:
            if len(self._buffer) >= HEADER:
                size = int.from_bytes(self._buffer[:HEADER], "big")
                if size == 0 or size > MAX_FRAME:
                    raise ProtocolViolation(f"a frame of {size} bytes (the limit is {MAX_FRAME})")
                if len(self._buffer) >= HEADER + size:
                    payload = bytes(self._buffer[HEADER : HEADER + size])
                    del self._buffer[: HEADER + size]
                    return payload
            if not self._readable.poll(_milliseconds(deadline)):
                raise ChannelTimeout("no answer before the deadline")
            try:
                chunk = os.read(self.from_host, MAX_FRAME + HEADER)
            except BlockingIOError:
                continue
            if not chunk:
                raise ChannelClosed("the bot's end of the pipe is closed")
            self._buffer += chunk

    def close(self) -> None:
        for fd in (self.to_host, self.from_host):
            with contextlib.suppress(OSError):
                os.close(fd)


def _milliseconds(deadline: float) -> int:
    remaining = deadline - time.monotonic()
    return max(0, int(remaining * 1000 + 0.999))
