"""What runs in a worker process of botkit/parallel.py's GamePool: it plays the shards its parent
sends, one at a time, on the one CPU it is pinned to, sending back each game as it ends and then
the shard's result without its games.

A worker stops its bots and removes its temporary folders when the parent stops it (SIGTERM, or
the end of its work), when the parent dies (a parent-death signal) and on Ctrl-C, which reaches
it too.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

_PR_SET_PDEATHSIG = 1
_WORKER_SIGNALS = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM)


def _portable(error: Exception) -> Exception:
    """The error as the parent can unpickle it: itself, or its type's name and its message."""
    import pickle

    try:
        pickle.loads(pickle.dumps(error))
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _die_with_parent(parent: int) -> None:
    """SIGTERM when the parent dies (even by SIGKILL), so this worker stops its bots too."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)
    if os.getppid() != parent:  # it died before the signal was asked for
        raise KeyboardInterrupt


_stopping = False


def _stop(number: int, frame: object) -> None:
    """The first stop signal kills every bot this worker started, then unwinds the shard being
    played (its folders removed); any later one does nothing, so it cannot cut that short (the
    handler stays: ignoring the signal instead would make Python raise for one already pending).

    The bots are killed here, before the unwinding, because the signal may land anywhere, in a
    player's own clean-up too: between marking its bot killed and killing it, after which its
    close() would wait for a bot that nobody kills."""
    global _stopping
    if _stopping:
        return
    _stopping = True
    _kill_children()
    raise KeyboardInterrupt


def _kill_children() -> None:
    """SIGKILL this process's children: each bot's bubblewrap (whose pid namespace, the bot in
    it, dies with it) or, in the Landlock tier, its host. Reaped by the players' clean-up."""
    own = f"/proc/{os.getpid()}/task"
    with contextlib.suppress(OSError):
        for task in os.listdir(own):
            with contextlib.suppress(OSError), open(f"{own}/{task}/children") as children:
                for child in children.read().split():
                    with contextlib.suppress(OSError):
                        os.kill(int(child), signal.SIGKILL)


def worker_main(connection: Connection, cpu: int, parent: int) -> None:
    """The worker process's whole life: ``(play, spec, stopped)`` tasks in from ``connection``
    until a None, ``("game", record)`` out for each game, then ``("done", result)`` or
    ``("error", exception)``. Pinned to ``cpu``; ``parent`` is the pool's process."""
    for number in _WORKER_SIGNALS:
        signal.signal(number, _stop)
    try:
        _die_with_parent(parent)
        os.dup2(2, 1)  # a bot's print() (in-process) must not reach the parent's table or JSON
        with contextlib.suppress(OSError):
            os.sched_setaffinity(0, {cpu})  # this worker's referee and the bots it starts
        while True:
            task = connection.recv()
            if task is None:
                return
            play, spec, stopped = task
            try:
                result = play(spec, stopped, lambda record: connection.send(("game", record)))
            except Exception as error:
                connection.send(("error", _portable(error)))
                continue
            connection.send(("done", dataclasses.replace(result, games=[])))
    except (KeyboardInterrupt, EOFError, OSError):
        return  # stopped, or the parent is gone: what was being played has been cleaned up
