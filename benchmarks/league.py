"""League of the built-in bots: every pairing, duplicate deals, seats rotated, in-process.

    .venv/bin/python benchmarks/league.py --games 2000 --search-budget 0.005 --jobs 2

Each pairing plays ``--games`` games (duplicate deals: every deck is played once per seat
rotation). With more than two ``--players``, the first bot of a pairing takes one seat and the
second fills the others. Games are cut into chunks that up to ``--jobs`` worker processes play;
the table gives, per bot, the mean score and the win rate with 95% intervals (deal groups are
the independent observations, see lineit.botkit.summary) and the games per second of one
worker.

The search bot's budget is set through the match limits, the way the platform sets it: it
thinks for half of ``move_seconds`` (capped at 0.1 s), so the league gives it
``move_seconds = 2 * budget``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import sys
import time
from collections import defaultdict
from dataclasses import replace

from lineit.botkit.limits import Limits
from lineit.botkit.players import InProcessPlayer
from lineit.botkit.referee import MatchResult, run_match
from lineit.botkit.schedule import MatchSpec
from lineit.botkit.sources import resolve_bot
from lineit.botkit.summary import summarize
from lineit.stats.intervals import grouped_rate

BOTS = ("random", "greedy", "heuristic", "search")
SEARCH_SHARE_OF_MOVE = 0.5  # lineit/builtin/search_bot.py BUDGET_FRACTION
CHUNK_GAMES = 100


def chunk_task(task: tuple) -> tuple:
    """Play one chunk of one pairing in this process; return its games without replays."""
    pairing, chunk, games, players, ruleset, seed, search_budget = task
    first, second = pairing
    # The bank is as large as the limits allow: on a loaded machine a process can wait for the
    # CPU for tens of milliseconds, which the referee (wall time) would charge to the bot; the
    # league measures strength, and reports the time used next to it.
    limits = Limits(move_seconds=max(0.001, search_budget / SEARCH_SHARE_OF_MOVE), bank_seconds=3600)
    spec = MatchSpec(num_players=players, games=games, ruleset=ruleset, seed=seed + chunk)
    entrants = [InProcessPlayer(resolve_bot(first))] + [
        InProcessPlayer(resolve_bot(second)) for _ in range(players - 1)
    ]
    started = time.perf_counter()
    result = run_match(spec, entrants, limits=limits)
    elapsed = time.perf_counter() - started
    # Deals are numbered per chunk: make them unique across chunks, drop the bulky replays.
    records = [replace(game, deal=chunk * 1_000_000 + game.deal, replay={}) for game in result.games]
    return pairing, records, elapsed, result.names, spec, limits


def chunks(total: int, players: int) -> list[int]:
    """Chunk sizes that keep every deal's rotation in one chunk."""
    size = max(players, CHUNK_GAMES - CHUNK_GAMES % players)
    sizes = [size] * (total // size)
    if total % size:
        sizes.append(total % size)
    return sizes


def print_pairing(pairing: tuple[str, str], result: MatchResult, elapsed: float, players: int) -> None:
    rows = summarize(result)
    games = len(result.games)
    deals = len({game.deal for game in result.games})
    label = f"{pairing[0]} vs {pairing[1]}" + (f" x{players - 1}" if players > 2 else "")
    print(f"\n{label}: {games} games on {deals} deals, {games / elapsed:.1f} games/s per worker")
    print(f"  {'bot':<10} {'mean score':>18} {'win rate (95% CI)':>22} {'mean rank':>10} {'ms/move':>8} {'fails':>6}")
    # Entrants 1..n-1 are the same bot: summarize them together by weighting their rows; its
    # win share in a game is the sum of its seats' shares, and the interval is Wilson's over the
    # deal groups of those shares (grouped_rate), as lineit's results table gives it.
    merged: dict[str, list] = {}
    for row in rows:
        merged.setdefault(row.name, []).append(row)
    shares: dict[str, dict[int, list[float]]] = {name: defaultdict(list) for name in merged}
    for game in result.games:
        winners = game.ranks.count(1)
        game_share = dict.fromkeys(merged, 0.0)
        for seat, entrant in enumerate(game.seats):
            if game.ranks[seat] == 1:
                game_share[result.names[entrant]] += 1.0 / winners
        for name, share in game_share.items():
            shares[name][game.deal].append(share)
    for name, group in merged.items():
        score = sum(r.mean_score for r in group) / len(group)
        score_half = max(r.score_interval for r in group)
        win, win_low, win_high = grouped_rate(list(shares[name].values()))
        rank = sum(r.mean_rank for r in group) / len(group)
        move = sum(r.mean_move_ms for r in group) / len(group)
        fails = sum(r.failures for r in group)
        score_text = f"{score:.2f} ± {score_half:.2f}"
        win_text = f"{100 * win:.1f}% [{100 * win_low:.1f}, {100 * win_high:.1f}]"
        print(f"  {name:<10} {score_text:>18} {win_text:>22} {rank:>10.2f} {move:>8.2f} {fails:>6}")
    sys.stdout.flush()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000, help="games per pairing (default 2000)")
    parser.add_argument("--search-budget", type=float, default=0.005, help="search seconds per decision")
    parser.add_argument("--players", type=int, default=2, help="seats per game, 2 to 5 (default 2)")
    parser.add_argument("--ruleset", default="standard", choices=("standard", "bga"))
    parser.add_argument("--jobs", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--bots", default=",".join(BOTS), help="comma-separated bots (default all four)")
    args = parser.parse_args(argv)

    bots = args.bots.split(",")
    pairings = list(itertools.combinations(bots, 2))
    tasks = []
    for pairing in pairings:
        for chunk, games in enumerate(chunks(args.games, args.players)):
            tasks.append((pairing, chunk, games, args.players, args.ruleset, args.seed, args.search_budget))
    expected = {pairing: sum(1 for task in tasks if task[0] == pairing) for pairing in pairings}
    done: dict[tuple[str, str], list] = {pairing: [] for pairing in pairings}
    print(
        f"League: {len(pairings)} pairings x {args.games} games, {args.players} players, {args.ruleset}, "
        f"search budget {1000 * args.search_budget:g} ms per decision, {args.jobs} jobs"
    )
    started = time.perf_counter()
    with multiprocessing.Pool(args.jobs) as pool:
        for pairing, records, elapsed, names, spec, limits in pool.imap_unordered(chunk_task, tasks):
            done[pairing].append((records, elapsed, names, spec, limits))
            if len(done[pairing]) == expected[pairing]:
                parts = done[pairing]
                games = [game for part in parts for game in part[0]]
                result = MatchResult(
                    spec=replace(parts[0][3], games=len(games)), names=parts[0][2], tier="in-process",
                    limits=parts[0][4], games=games,
                )  # fmt: skip
                print_pairing(pairing, result, sum(part[1] for part in parts), args.players)
    print(f"\nTotal wall time {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
