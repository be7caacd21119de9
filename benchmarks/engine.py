"""Engine speed on one core: random games per second through the state API.

Prints, for two to five players and both rulesets: games per second with legal actions and
apply only, the same with an observation built for the deciding seat at every decision, and
the mean number of decisions per game. Goals (issue 2): at least 4,000 two-player games/s
without observations and 1,500 with them.

The engine's hot modules run compiled by mypyc once `make engine` has built them (the normal
case); the first line says which implementation ran. Unless --no-source, the two-player
standard row is measured again with the Python source (LINEIT_PURE_ENGINE=1, a second process
on the same CPU) and the ratio printed: the same rules, compiled or not.

    python benchmarks/engine.py [--games N] [--repeat R] [--no-source]
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time

from lineit.engine import IMPLEMENTATION, WHY_NOT_COMPILED, new_game


def play(num_players: int, ruleset: str, games: int, *, observe: bool) -> tuple[float, float]:
    uniform = random.Random(12345).random
    decisions = 0
    started = time.perf_counter()
    for seed in range(games):
        state = new_game(num_players, ruleset, seed=seed)
        while not state.is_over:
            if observe:
                state.observation(state.current_player)
            legal = state.legal_actions()
            state.apply(legal[int(uniform() * len(legal))])
            decisions += 1
    elapsed = time.perf_counter() - started
    return games / elapsed, decisions / games


class _TrivialState:
    """The same loop against a state that does nothing: the interpreter's floor for a game of
    ``decisions`` decisions, to put the engine's figures in proportion."""

    def __init__(self, decisions: int) -> None:
        self.left = decisions
        self.is_over = False
        self._legal = ["take 1 line", "take 1 hand", "take 2 line", "take 2 hand", "close", "pass"]

    def legal_actions(self) -> list[str]:
        return self._legal.copy()

    def apply(self, action: str) -> None:
        if action not in self._legal:
            raise ValueError(action)
        self.left -= 1
        self.is_over = self.left == 0


def floor_rate(decisions: int, games: int) -> float:
    uniform = random.Random(1).random
    started = time.perf_counter()
    for _ in range(games):
        state = _TrivialState(decisions)
        while not state.is_over:
            legal = state.legal_actions()
            state.apply(legal[int(uniform() * len(legal))])
    return games / (time.perf_counter() - started)


def measure(num_players: int, ruleset: str, games: int, repeat: int) -> tuple[float, float, float]:
    """Best of ``repeat``: games/s plain, games/s with observations, decisions per game."""
    plain = max(play(num_players, ruleset, games, observe=False)[0] for _ in range(repeat))
    observed, decisions = 0.0, 0.0
    for _ in range(repeat):
        rate, decisions = play(num_players, ruleset, games, observe=True)
        observed = max(observed, rate)
    return plain, observed, decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000, help="games per measurement (default 3000)")
    parser.add_argument("--repeat", type=int, default=3, help="measurements per row; the best is kept")
    parser.add_argument("--no-source", action="store_true", help="skip the run of the Python source")
    parser.add_argument("--row", help=argparse.SUPPRESS)  # "players,ruleset": one row, for the source run
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    if args.row:
        players, ruleset = args.row.split(",")
        print(*measure(int(players), ruleset, args.games, args.repeat))
        return
    print(f"engine: {IMPLEMENTATION}" + (f" ({WHY_NOT_COMPILED})" if WHY_NOT_COMPILED else " (mypyc)"))
    print(f"{'players':>7} {'ruleset':>8} {'games/s':>9} {'with obs':>9} {'decisions/game':>15}")
    for num_players in (2, 3, 4, 5):
        for ruleset in ("standard", "bga"):
            plain, observed, decisions = measure(num_players, ruleset, args.games, args.repeat)
            print(f"{num_players:>7} {ruleset:>8} {plain:>9.0f} {observed:>9.0f} {decisions:>15.1f}")
            if num_players == 2 and ruleset == "standard":
                floor = max(floor_rate(round(decisions), args.games) for _ in range(args.repeat))
                print(f"{'':>7} {'floor':>8} {floor:>9.0f} {'':>9} {'(same loop, a state that does nothing)':>15}")
                if IMPLEMENTATION == "compiled" and not args.no_source:
                    source = source_row(num_players, ruleset, args.games, args.repeat)
                    print(f"{'':>7} {'source':>8} {source[0]:>9.0f} {source[1]:>9.0f} {'(Python source)':>15}")
                    print(
                        f"{'':>7} {'ratio':>8} {plain / source[0]:>9.2f} {observed / source[1]:>9.2f}"
                        f" {'(compiled / source)':>15}"
                    )


def source_row(num_players: int, ruleset: str, games: int, repeat: int) -> tuple[float, float]:
    command = [sys.executable, __file__, "--row", f"{num_players},{ruleset}", f"--games={games}", f"--repeat={repeat}"]
    output = subprocess.run(
        command, env={**os.environ, "LINEIT_PURE_ENGINE": "1"}, capture_output=True, text=True, check=True
    ).stdout
    plain, observed, _ = (float(value) for value in output.split())
    return plain, observed


if __name__ == "__main__":
    main()
