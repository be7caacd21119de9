"""Sandbox speed: decision round trip, bot start-up, and the wall time of a 100-game match,
sandboxed against in-process, for the random bot. Run: .venv/bin/python benchmarks/sandbox.py

``--startup-only`` measures only the start-up to ready (and the memory) of three bots, their
starts interleaved: one that imports nothing, one that imports the engine (``lineit.engine``,
the goal is a median under 50 ms) and one that imports numpy (when installed), each against a
bare ``python -I -S`` of the same run. Memory is the host process's peak resident set (VmHWM)
and address space (VmPeak, what the memory limit counts) once the bot is ready.

The goal (issue 3) is the median overhead per decision of a match: the "real games" lines time
every decision of the referee's games (run_match, the players sharing one TurnGate, as
run_sandboxed_match plays them), sandboxed and in-process. In a two-player game about four
decisions in five are by the bot that made the one before (take, play and close are separate
decisions), so the median decision costs no freeze; the "turn change every decision" line is
the worst case, every decision paying the SIGSTOP of one bot and the SIGCONT of the other.

The match and its bots are pinned to one CPU (as run_sandboxed_match does by default), since
a round trip between two vCPUs costs a cross-CPU wake-up of about 50 µs on these VMs.

The machines are shared, so every figure comes with its floor measured in the same run: a pinned
1-byte pipe ping-pong with a bare ``python -I -S`` child (the least a decision can cost) and the
start-up of a bare ``python -I -S`` (the least a bot's start-up can cost). Compare ratios.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource, builtin_source
from lineit.engine import new_game
from lineit.sandbox import SandboxedPlayer, TurnGate, detect_tier, run_sandboxed_match
from lineit.sandbox.tiers import HOST_VIEW_VARIABLE

# Both tiers are measured: the Landlock one as an operator who accepts its view of the machine
# runs it (docs/sandbox.md, "Tiers"); untrusted bots are not run there otherwise.
os.environ.setdefault(HOST_VIEW_VARIABLE, "1")


def observations(count: int) -> list[dict]:
    found: list[dict] = []
    seed = 0
    while len(found) < count:
        state = new_game(2, seed=seed)
        while not state.is_over and len(found) < count:
            found.append(state.observation(state.current_player))
            state.apply(state.legal_actions()[0])
        seed += 1
    return found


class Timed:
    """A Player that records how long each act() took, and whether the bot acting is the one that
    acted last (the match's players share ``last``)."""

    def __init__(self, player: InProcessPlayer | SandboxedPlayer, times: list[tuple[float, bool]], last: list) -> None:
        self.player, self.times, self.last = player, times, last

    def __getattr__(self, name: str) -> object:
        return getattr(self.player, name)

    def fresh(self) -> Timed:
        return Timed(self.player.fresh(), self.times, self.last)  # each lane's decisions timed too

    def act(self, observation: dict, timeout: float) -> object:
        started = time.perf_counter()
        action = self.player.act(observation, timeout)
        self.times.append((time.perf_counter() - started, self.last[0] is self))
        self.last[0] = self
        return action


def real_games(players: list, games: int) -> list[tuple[float, bool]]:
    """Every decision of ``games`` games through the referee, one seat per player: (seconds, same
    bot as before)."""
    times: list[tuple[float, bool]] = []
    last: list = [None]
    spec = MatchSpec(num_players=len(players), games=games, seed=7)
    run_match(spec, [Timed(player, times, last) for player in players])
    return times


def round_trips(player: InProcessPlayer | SandboxedPlayer, samples: list[dict]) -> list[float]:
    times = []
    for observation in samples:
        started = time.perf_counter()
        player.act(observation, 5.0)
        times.append(time.perf_counter() - started)
    return times


ECHO = """
import os, sys
read_fd, write_fd = int(sys.argv[1]), int(sys.argv[2])
while os.read(read_fd, 65536):
    os.write(write_fd, b"x")
"""


def base_python() -> str:
    from lineit.sandbox.runtime import interpreter

    return str(interpreter().executable)


def pipe_floor(count: int) -> list[float]:
    """Round trips of one byte to a bare interpreter and back: the floor of a decision."""
    request_read, request_write = os.pipe()
    reply_read, reply_write = os.pipe()
    command = [base_python(), "-I", "-S", "-c", ECHO, str(request_read), str(reply_write)]
    child = subprocess.Popen(command, pass_fds=(request_read, reply_write))
    os.close(request_read)
    os.close(reply_write)
    times = []
    for _ in range(count):
        started = time.perf_counter()
        os.write(request_write, b"x")
        os.read(reply_read, 16)
        times.append(time.perf_counter() - started)
    os.close(request_write)
    child.wait()
    os.close(reply_read)
    return times


def bare_starts(count: int) -> list[float]:
    """Start-up and exit of a bare interpreter: the floor of a bot's start-up."""
    times = []
    for _ in range(count):
        started = time.perf_counter()
        subprocess.run([base_python(), "-I", "-S", "-c", "pass"], check=True)
        times.append(time.perf_counter() - started)
    return times


STARTUP_BOTS = {
    "nothing imported": "def act(observation):\n    return observation['legal_actions'][0]\n",
    "lineit.engine imported": "import lineit.engine\nfrom lineit.engine import determinize\n\n"
    "def act(observation):\n    return observation['legal_actions'][0]\n",
    "numpy imported": "import numpy\n\ndef act(observation):\n    return observation['legal_actions'][0]\n",
}


def memory_kb(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmHWM", "VmPeak"):
            fields[name] = int(value.split()[0])
    return fields


def startups(tiers: list[str], count: int) -> None:
    """Start-up to ready of each STARTUP_BOTS bot in each tier, interleaved, with its memory."""
    from lineit.sandbox.runtime import allowed_packages

    bots = dict(STARTUP_BOTS)
    if not any(package.name == "numpy" for package in allowed_packages()):
        del bots["numpy imported"]
        print("numpy is not installed: its start-up is not measured")
    bare = bare_starts(count)
    print(f"floor, bare python -I -S start-up: median {statistics.median(bare) * 1e3:.1f} ms")
    with tempfile.TemporaryDirectory() as folder:
        sources = {}
        for index, (label, code) in enumerate(bots.items()):
            path = Path(folder) / f"startup_{index}.py"
            path.write_text(code)
            sources[label] = BotSource(name=label, path=path)
        times: dict[tuple[str, str], list[float]] = {(tier, label): [] for tier in tiers for label in bots}
        memory: dict[tuple[str, str], dict[str, int]] = {}
        for _ in range(count + 1):  # the first round warms up (the runtime folder, the page cache)
            for tier in tiers:
                for label, source in sources.items():
                    player = SandboxedPlayer(source, Limits(), tier=tier)
                    started = time.perf_counter()
                    player.start(10)
                    times[tier, label].append(time.perf_counter() - started)
                    assert player.pid is not None
                    memory[tier, label] = memory_kb(player.pid)
                    player.cleanup()
        for (tier, label), found in times.items():
            found = found[1:]
            peak = memory[tier, label]
            print(
                f"{tier} start-up to ready, {label}: median {statistics.median(found) * 1e3:.1f} ms, "
                f"max {max(found) * 1e3:.1f} ms ({statistics.median(found) / statistics.median(bare):.1f}x a bare "
                f"python); peak RSS {peak['VmHWM'] / 1024:.1f} MB, address space {peak['VmPeak'] / 1024:.1f} MB"
            )


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--decisions", type=int, default=5000)
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--players", type=int, default=2, choices=range(2, 6), help="seats of the real games")
    parser.add_argument("--startup-only", action="store_true", help="only the start-up and memory of three bots")
    args = parser.parse_args()
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(allowed)})
    report = detect_tier()
    print(f"tiers working: {', '.join(report.working) or 'none'}; pinned to CPU {min(allowed)}")
    if args.startup_only:
        startups(report.working, args.starts)
        return
    limits = Limits()
    source = builtin_source("random")
    samples = observations(args.decisions)

    floor = pipe_floor(args.decisions)
    floor_median = statistics.median(floor)
    print(
        f"floor, pinned 1-byte pipe round trip to a bare python: median {floor_median * 1e6:.1f} µs, "
        f"p99 {percentile(floor, 0.99) * 1e6:.1f} µs"
    )
    bare = bare_starts(args.starts)
    print(f"floor, bare python -I -S start-up: median {statistics.median(bare) * 1e3:.1f} ms")

    trusted = InProcessPlayer(source)
    trusted.start(10)
    trusted.start_game({"game": 0, "seat": 0}, 10)
    base = round_trips(trusted, samples)
    print(
        f"in-process decision: median {statistics.median(base) * 1e6:.1f} µs, p99 {percentile(base, 0.99) * 1e6:.1f} µs"
    )

    base_games = real_games([InProcessPlayer(source) for _ in range(args.players)], args.games)
    base_median = statistics.median(seconds for seconds, _ in base_games)
    base_mean = statistics.mean(seconds for seconds, _ in base_games)
    same_share = sum(same for _, same in base_games) / len(base_games)
    print(
        f"real games ({args.games} of {args.players} players, {len(base_games)} decisions, {same_share:.0%} by the bot that made the one "
        f"before): in-process decision median {base_median * 1e6:.1f} µs, mean {base_mean * 1e6:.1f} µs"
    )
    for tier in report.working:
        gate = TurnGate()
        players = [SandboxedPlayer(source, limits, tier=tier, gate=gate) for _ in range(args.players)]
        real_games(players, 5)  # warm up
        timed = real_games(players, args.games)
        for player in players:
            player.cleanup()
        median = statistics.median(seconds for seconds, _ in timed)
        mean = statistics.mean(seconds for seconds, _ in timed)
        same = [seconds for seconds, same in timed if same]
        change = [seconds for seconds, same in timed if not same]
        print(
            f"real games, {tier}: decision median {median * 1e6:.1f} µs, p99 {percentile([t for t, _ in timed], 0.99) * 1e6:.1f} µs; "
            f"OVERHEAD PER DECISION: median {(median - base_median) * 1e6:.1f} µs (goal 30), "
            f"mean {(mean - base_mean) * 1e6:.1f} µs; same bot median {statistics.median(same) * 1e6:.1f} µs, "
            f"turn change median {statistics.median(change) * 1e6:.1f} µs"
        )

    for tier in report.working:
        # Two players on one gate, alternating, so every decision pays the freeze/thaw of a turn change.
        gate = TurnGate()
        players = [SandboxedPlayer(source, limits, tier=tier, gate=gate) for _ in range(2)]
        for player in players:
            player.start(10)
            player.start_game({"game": 0, "seat": 0}, 10)
        round_trips(players[0], samples[:200])  # warm up
        times = []
        for index, observation in enumerate(samples):
            player = players[index % 2]
            started = time.perf_counter()
            player.act(observation, 5.0)
            times.append(time.perf_counter() - started)
        median, p99 = statistics.median(times), percentile(times, 0.99)
        print(
            f"{tier} decision (turn change every decision): median {median * 1e6:.1f} µs, p99 {p99 * 1e6:.1f} µs; "
            f"overhead over in-process {(median - statistics.median(base)) * 1e6:.1f} µs "
            f"({median / floor_median:.1f}x the pipe floor)"
        )
        same = round_trips(players[0], samples)
        print(
            f"{tier} decision (same bot again, no freeze): median {statistics.median(same) * 1e6:.1f} µs, "
            f"p99 {percentile(same, 0.99) * 1e6:.1f} µs"
        )
        for player in players:
            player.cleanup()

        starts = []
        for _ in range(args.starts):
            player = SandboxedPlayer(source, limits, tier=tier)
            started = time.perf_counter()
            player.start(10)
            starts.append(time.perf_counter() - started)
            player.cleanup()
        print(
            f"{tier} start-up to ready: median {statistics.median(starts) * 1e3:.1f} ms, max {max(starts) * 1e3:.1f} ms "
            f"({statistics.median(starts) / statistics.median(bare):.1f}x a bare python)"
        )

    spec = MatchSpec(num_players=2, games=args.games, seed=1)
    started = time.perf_counter()
    run_match(spec, [InProcessPlayer(source), InProcessPlayer(source)])
    in_process = time.perf_counter() - started
    print(f"{args.games}-game match in-process: {in_process:.2f} s")
    for tier in report.working:
        started = time.perf_counter()
        result = run_sandboxed_match(spec, [source, source], tier=tier)
        sandboxed = time.perf_counter() - started
        assert not result.failures
        print(f"{args.games}-game match {tier}: {sandboxed:.2f} s, ratio {sandboxed / in_process:.2f}")


if __name__ == "__main__":
    main()
