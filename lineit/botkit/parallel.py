"""Playing the games of matches in parallel worker processes, with the results of one process.

A match is cut into shards of consecutive games (``MatchSpec.shard``); each shard is played by
one worker process (started with ``spawn``), pinned to one usable CPU (worker k to the k-th
CPU, modulo their number), which plays it as one process would: its own bots (each in its own
sandbox, or in the worker for --in-process), started for the shard and restarted after a
failure. Games come back one at a time and are handed on in the match's order, so the caller
writes the same replays and the same table as with one process.

Only one thing carries from game to game of a match: a bot that failed ``max_failures`` games
is stopped for the rest of it. The games are accepted in order, counting failures as one
process would; a game that was played with a bot that should have been stopped by then (or
the other way round) is thrown away and played again, with its later games, by a shard that
starts with that bot stopped (players.py: ``StoppedPlayer``). A bot's time bank is per shard: a bot that
draws on it may time out where one process would not (or the other way round).

Every worker stops its bots and removes its temporary folders when the parent stops it (a
signal, or the end of the command), when its parent dies (a parent-death signal), and on
Ctrl-C, which reaches it too: parallel_worker.py is what runs in a worker process, this module
the parent's side.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .parallel_worker import worker_main
from .referee import GameRecord, MatchResult
from .schedule import MatchSpec
from .scratch import sweep_stale_folders
from .stops import StopTracker

if TYPE_CHECKING:  # multiprocessing itself is imported when a pool starts: not on every lineit start
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

MAX_JOBS = 256
MIN_SHARD_GAMES = 10  # a worker's bots take 30 to 40 ms each to start: a shard plays at least this
MAX_SHARD_GAMES = 100
STOP_GRACE_SECONDS = 30.0  # for a stopped worker to stop its bots and remove its folders

# play(spec with its shard, entrants stopped from the start, on_game) -> the shard's result;
# picklable (a module's function, or a functools.partial of one): it runs in the worker.
Play = Callable[[MatchSpec, frozenset[int], Callable[[GameRecord], None]], MatchResult]


def usable_cpus() -> list[int]:
    return sorted(os.sched_getaffinity(0))


def default_jobs() -> int:
    """The usable cores: the CPUs this process may run on."""
    return len(usable_cpus())


class WorkerLost(Exception):
    """A worker process ended without being asked to (killed by the system, out of memory)."""


@dataclass(frozen=True)
class MatchJob:
    """A whole match to play: ``play`` plays a shard of it (see Play); ``shard_games`` the size
    of its shards (default: shard_size)."""

    spec: MatchSpec
    play: Play
    max_failures: int
    shard_games: int | None = None


def shard_size(spec: MatchSpec, jobs: int) -> int:
    """About two shards per worker (so that a slow shard does not leave the others idle at the
    end), of whole deals, from MIN_SHARD_GAMES to MAX_SHARD_GAMES games."""
    size = min(MAX_SHARD_GAMES, max(MIN_SHARD_GAMES, math.ceil(spec.games / (2 * jobs))))
    deal = spec.num_players if spec.duplicate_deals else 1
    return math.ceil(size / deal) * deal


def shards(games: int, start: int, size: int) -> list[range]:
    return [range(first, min(first + size, games)) for first in range(start, games, size)]


@dataclass
class _Match:
    """A match being played: what is accepted (in order), what is still to hand out."""

    index: int
    job: MatchJob
    size: int
    pending: deque[range]
    failures: StopTracker
    stopped: frozenset[int] = frozenset()
    generation: int = 0  # a re-plan (a bot stopped) makes the shards already out stale
    received: dict[int, GameRecord] = field(default_factory=dict)
    accepted: list[GameRecord] = field(default_factory=list)
    delivered: int = 0
    outline: MatchResult | None = None  # a shard's result without its games: names, tier, limits

    def accept(self) -> None:
        """Accept the received games that come next, in order, as one process would have played
        them; re-plan from the first one that was played with other bots stopped."""
        while len(self.accepted) in self.received:
            record = self.received.pop(len(self.accepted))
            if not self.failures.accept(record):
                self.generation += 1
                self.received.clear()
                self.stopped = self.failures.due
                self.pending = deque(shards(self.job.spec.games, len(self.accepted), self.size))
                return
            self.accepted.append(record)

    @property
    def complete(self) -> bool:
        return len(self.accepted) == self.job.spec.games and self.outline is not None


@dataclass
class _Task:
    match: _Match
    generation: int
    shard: range
    abandoned: bool = False

    @property
    def current(self) -> bool:
        return not self.abandoned and self.generation == self.match.generation


@dataclass
class _Worker:
    number: int
    process: BaseProcess
    connection: Connection
    task: _Task | None = None


class GamePool:
    """Up to ``jobs`` worker processes, started when there are games for them, stopped (with
    their bots and folders) when the pool is left, however it is left."""

    def __init__(self, jobs: int) -> None:
        if not 1 <= jobs <= MAX_JOBS:
            raise ValueError(f"jobs must be from 1 to {MAX_JOBS}, not {jobs!r}")
        self.jobs = jobs
        self.cpus = usable_cpus()
        self.workers: list[_Worker] = []
        self._context: Any = None  # multiprocessing's spawn context, once a worker starts

    def __enter__(self) -> GamePool:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def play(
        self,
        jobs: Iterable[MatchJob],
        *,
        on_game: Callable[[int, GameRecord], None] | None = None,
        on_match: Callable[[int, MatchResult], bool] | None = None,
    ) -> None:
        """Play the matches of ``jobs`` (read lazily, a few ahead of the one being finished).
        ``on_game(i, record)`` gets match i's games in order, match after match; then
        ``on_match(i, result)`` the whole match, and returns whether to go on: False stops
        (the matches not finished are dropped, their games not handed on)."""
        _Round(self, iter(jobs), on_game, on_match).run()

    def start_worker(self) -> _Worker:
        if self._context is None:
            import multiprocessing

            self._context = multiprocessing.get_context("spawn")
        number = len(self.workers)
        ours, theirs = self._context.Pipe()
        cpu = self.cpus[number % len(self.cpus)]
        process = self._context.Process(
            target=worker_main, args=(theirs, cpu, os.getpid()), name=f"lineit-games-{number}", daemon=True
        )
        process.start()
        theirs.close()
        worker = _Worker(number, process, ours)
        self.workers.append(worker)
        return worker

    def close(self) -> None:
        """Stop every worker: a busy one by a signal (it stops its bots, removes its folders
        and exits), an idle one by the end of its work; wait for them all. Then remove what a
        worker that could not clean up left behind."""
        for worker in self.workers:
            if worker.process.is_alive():
                if worker.task is not None and worker.process.pid is not None:
                    with contextlib.suppress(OSError):
                        os.kill(worker.process.pid, signal.SIGTERM)
                else:
                    with contextlib.suppress(OSError, ValueError):
                        worker.connection.send(None)
        deadline = time.monotonic() + STOP_GRACE_SECONDS
        for worker in self.workers:
            worker.process.join(max(0.0, deadline - time.monotonic()))
            if worker.process.is_alive():
                worker.process.kill()
                worker.process.join()
            worker.connection.close()
        if self.workers:
            sweep_stale_folders()  # the workers' own, had one been killed before it cleaned up
        self.workers = []


class _Round:
    """One GamePool.play call: hands shards to idle workers and games back in order."""

    def __init__(
        self,
        pool: GamePool,
        jobs: Iterator[MatchJob],
        on_game: Callable[[int, GameRecord], None] | None,
        on_match: Callable[[int, MatchResult], bool] | None,
    ) -> None:
        self.pool = pool
        self.jobs = jobs
        self.on_game = on_game
        self.on_match = on_match
        self.matches: dict[int, _Match] = {}
        self.taken = 0  # matches read from jobs
        self.front = 0  # the match whose games are being handed on
        self.exhausted = False
        self.stopped = False

    def run(self) -> None:
        from multiprocessing.connection import wait

        try:
            while not self.stopped:
                self.hand_out()
                if self.exhausted and not self.matches:
                    return
                busy = [worker for worker in self.pool.workers if worker.task is not None]
                if not busy:
                    raise RuntimeError("no worker is playing and no game is left to hand out")
                ready = wait([worker.connection for worker in busy] + [worker.process.sentinel for worker in busy])
                for worker in busy:
                    if worker.connection in ready or worker.process.sentinel in ready:
                        self.receive(worker)
                        if self.stopped:
                            return
        finally:
            for worker in self.pool.workers:
                if worker.task is not None:
                    worker.task.abandoned = True  # its messages are read and dropped by a later round

    def next_shard(self) -> tuple[_Match, range] | None:
        for index in sorted(self.matches):
            match = self.matches[index]
            if match.pending:
                return match, match.pending.popleft()
        # read ahead: at most two matches per worker not yet handed on
        if self.exhausted or len(self.matches) >= 2 * self.pool.jobs:
            return None
        try:
            job = next(self.jobs)
        except StopIteration:
            self.exhausted = True
            return None
        if job.spec.shard is not None:
            raise ValueError("a job is a whole match, not a shard")
        size = job.shard_games or shard_size(job.spec, self.pool.jobs)
        match = _Match(
            index=self.taken,
            job=job,
            size=size,
            pending=deque(shards(job.spec.games, 0, size)),
            failures=StopTracker(job.spec.num_players, job.max_failures),
        )
        self.matches[self.taken] = match
        self.taken += 1
        return self.next_shard()

    def idle_worker(self) -> _Worker | None:
        for worker in self.pool.workers:
            if worker.task is None:
                return worker
        if len(self.pool.workers) < self.pool.jobs:
            return self.pool.start_worker()
        return None

    def hand_out(self) -> None:
        while any(worker.task is None for worker in self.pool.workers) or len(self.pool.workers) < self.pool.jobs:
            found = self.next_shard()
            if found is None:
                return
            match, shard = found
            worker = self.idle_worker()
            if worker is None:  # cannot happen: the loop's condition holds one
                match.pending.appendleft(shard)
                return
            spec = dataclasses.replace(match.job.spec, shard=shard)
            worker.task = _Task(match, match.generation, shard)
            worker.connection.send((match.job.play, spec, match.stopped))

    def receive(self, worker: _Worker) -> None:
        try:
            kind, payload = worker.connection.recv()
        except (EOFError, OSError):
            worker.process.join(STOP_GRACE_SECONDS)
            status = worker.process.exitcode
            worker.task = None
            raise WorkerLost(f"a worker process ended unexpectedly (exit status {status})") from None
        task = worker.task
        if task is None:
            raise RuntimeError(f"a worker sent {kind!r} with no games to play")
        if kind == "error":
            worker.task = None
            if task.current:
                raise payload
            return
        if not task.current:
            if kind == "done":
                worker.task = None
            return
        match = task.match
        if kind == "game":
            match.received[payload.index] = payload
            match.accept()
        elif kind == "done":
            worker.task = None
            match.outline = payload
        self.hand_on()

    def hand_on(self) -> None:
        """Give the accepted games to on_game in order, and each complete match to on_match."""
        while self.front in self.matches:
            match = self.matches[self.front]
            while match.delivered < len(match.accepted):
                record = match.accepted[match.delivered]
                match.delivered += 1
                if self.on_game is not None:
                    self.on_game(match.index, record)
            if not match.complete or match.outline is None:
                return
            result = dataclasses.replace(match.outline, spec=match.job.spec, games=match.accepted)
            del self.matches[self.front]
            self.front += 1
            if self.on_match is not None and not self.on_match(match.index, result):
                self.stopped = True
                return
