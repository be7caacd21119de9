"""The built-in search bot against the built-in heuristic at one time budget, on duplicate deals,
for one or more versions of the built-in bots played interleaved on the same deals.

    git worktree add /tmp/h1-before <commit>
    .venv/bin/python benchmarks/builtin_strength.py --games 1000 --budget 0.005 --before /tmp/h1-before

Each version is a folder holding ``lineit/builtin/{search,heuristic}_bot.py``: this tree's
("after"), and with ``--before`` another checkout's ("before"; its bots import the engine of this
tree, so only the bots differ). Every deal is played twice with the bots swapping seats, by
every version in turn, chunk after chunk, so a slower or busier moment of the machine falls on
all versions alike. A deal pair is the independent observation: per pair, the search bot's win
share (a tie counts a half) and its mean score minus the heuristic's, with a 95% Student t
interval over pairs; the before/after line is the paired difference over the same deals.

The search bot's budget is set as the platform sets it: half of ``move_seconds`` (capped at
0.1 s), so ``move_seconds = 2 * budget``. In-process (the sandbox adds nothing per decision that
the budget would see); the bank is as large as the limits allow, so a busy machine's waits are
not forfeits.
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import time
from pathlib import Path

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import BotSource
from lineit.stats.intervals import mean_interval

HERE = Path(__file__).resolve().parents[1]
SEARCH_SHARE_OF_MOVE = 0.5  # lineit/builtin/search_bot.py BUDGET_FRACTION
CHUNK_DEALS = 25


def play_chunk(task: tuple[str, str, int, int, int, float, str]) -> tuple[str, int, list[tuple[float, float]], float]:
    """(version, chunk, per deal pair (search's win share, score difference), seconds)."""
    version, tree, chunk, deals, seed, budget, ruleset = task
    folder = Path(tree) / "lineit" / "builtin"
    search = BotSource(name=f"search-{version}", path=folder / "search_bot.py")
    heuristic = BotSource(name=f"heuristic-{version}", path=folder / "heuristic_bot.py")
    limits = Limits(move_seconds=budget / SEARCH_SHARE_OF_MOVE, bank_seconds=3600, move_timeout_seconds=60)
    spec = MatchSpec(num_players=2, games=2 * deals, ruleset=ruleset, seed=seed * 1_000_003 + chunk)
    started = time.perf_counter()
    result = run_match(spec, [InProcessPlayer(search), InProcessPlayer(heuristic)], limits=limits)
    elapsed = time.perf_counter() - started
    if result.failures:
        raise SystemExit(f"{version}: a bot failed: {result.failures[0].message}")
    pairs: dict[int, list[tuple[float, float]]] = {}
    for game in result.games:
        mine, theirs = (game.scores[seat] for seat in (game.seats.index(0), game.seats.index(1)))
        win = 1.0 if mine > theirs else 0.5 if mine == theirs else 0.0
        pairs.setdefault(game.deal, []).append((win, float(mine - theirs)))
    found = [(sum(w for w, _ in games) / 2, sum(d for _, d in games) / 2) for _, games in sorted(pairs.items())]
    return version, chunk, found, elapsed


def line(label: str, values: list[float], unit: str = "", scale: float = 1.0, sign: str = "+") -> str:
    mean, half = mean_interval(values)
    return f"{label} {scale * mean:{sign}.1f}{unit} ± {scale * half:.1f}{unit}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000, help="games per version (even; default 1000)")
    parser.add_argument("--budget", type=float, default=0.005, help="search seconds per decision (default 0.005)")
    parser.add_argument("--before", type=Path, help="another checkout whose built-in bots to play too")
    parser.add_argument("--ruleset", default="standard", choices=("standard", "bga"))
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    versions = {"after": HERE}
    if args.before is not None:
        if not (args.before / "lineit" / "builtin" / "search_bot.py").is_file():
            parser.error(f"{args.before} holds no lineit/builtin/search_bot.py")
        versions = {"before": args.before.resolve(), **versions}
    deals = max(1, args.games // 2)
    sizes = [CHUNK_DEALS] * (deals // CHUNK_DEALS) + ([deals % CHUNK_DEALS] if deals % CHUNK_DEALS else [])
    tasks = [
        (version, str(tree), chunk, size, args.seed, args.budget, args.ruleset)
        for chunk, size in enumerate(sizes)
        for version, tree in versions.items()
    ]
    print(
        f"search vs heuristic: {2 * deals} games ({deals} duplicate deal pairs) per version, {args.ruleset}, "
        f"budget {1000 * args.budget:g} ms per decision, {args.jobs} job(s), versions {', '.join(versions)}"
    )
    results: dict[str, dict[int, list[tuple[float, float]]]] = {version: {} for version in versions}
    seconds = dict.fromkeys(versions, 0.0)
    with multiprocessing.Pool(args.jobs) as pool:
        for version, chunk, found, elapsed in pool.imap_unordered(play_chunk, tasks):
            results[version][chunk] = found
            seconds[version] += elapsed
    per_version = {version: [pair for chunk in sorted(got) for pair in got[chunk]] for version, got in results.items()}
    for version, pairs in per_version.items():
        wins = [win for win, _ in pairs]
        differences = [difference for _, difference in pairs]
        print(
            f"{version:>6}: {line('search win rate', wins, '%', 100, '')} (50% = even), "
            f"{line('score difference', differences)} points a game, "
            f"{2 * len(pairs) / seconds[version]:.1f} games/s"
        )
    if "before" in per_version:
        before, after = per_version["before"], per_version["after"]
        print(
            "after - before, paired over the same deals: "
            f"{line('win rate', [a[0] - b[0] for a, b in zip(after, before)], '%', 100)}, "
            f"{line('score difference', [a[1] - b[1] for a, b in zip(after, before)])}"
        )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
