"""``lineit sprt``: is a new version of a bot better than the old one? Deal pairs until a
sequential probability ratio test decides (lineit/stats/sprt.py)."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import math
import sys
from collections.abc import Iterator
from typing import Any

from lineit.botkit.parallel import GamePool, MatchJob
from lineit.botkit.referee import MatchResult
from lineit.botkit.schedule import MAX_GAMES, MatchSpec, new_seed
from lineit.botkit.sources import BUILTIN_NAMES
from lineit.botkit.untrusted import safe_text
from lineit.engine import RULESETS, STANDARD
from lineit.stats.sprt import CONTINUE, H0, H1, MOST_GAMES, Bounds, Sprt, batch_seed

from .errors import BotsForfeited, CommandError, UsageError
from .match import (
    add_jobs_argument,
    add_limit_arguments,
    bots_never_loaded,
    jobs_of,
    match_job,
    match_limits,
    play,
    play_in_pool,
    resolve_sources,
)

DEFAULT_BATCH = 20  # games between two looks at the test: ten deals, each played from both seats
DEFAULT_MAX_GAMES = 20_000
NEW, OLD = 0, 1  # entrants

EPILOG = f"""\
Games come in pairs: each deal is played twice, the bots swapping seats, and a pair is one
observation (the new bot's points over its two games). After every --batch games the test looks
at the log-likelihood ratio of H1 (the new bot is elo1 Elo stronger) against H0 (elo0): it stops
with H1 accepted when the ratio passes ln((1 - beta) / alpha), with H0 accepted when it falls
below ln(beta / (1 - alpha)), or undecided after --max-games. A forfeited game is a loss.

With --jobs N (default: one per usable core; 1 with --in-process) up to N batches are played
at once, each by its own worker process with its own sandboxed bots, while the test still
looks at the batches one by one, in order: it stops after the same batch, with the same
result, for any --jobs (at the same --batch); the batches played beyond it are thrown away.

A bot is a built-in name ({", ".join(BUILTIN_NAMES)}), a .py file, a .zip package with bot.py
at its root, or a folder holding bot.py. Bots run in the sandbox unless --in-process is given.

examples:
  lineit sprt mybot_v2.py mybot_v1.py                    # is v2 at least 10 Elo better?
  lineit sprt mybot_v2.py mybot_v1.py --elo0 -5 --elo1 0  # is v2 no worse (a refactoring)?
  lineit sprt mybot.py heuristic --json > sprt.json"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "sprt",
        help="test whether a new bot is stronger than an old one, in as few games as needed",
        description="Play deal pairs between a new and an old bot until a sequential test decides.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("new", metavar="NEW", help="the bot under test")
    parser.add_argument("old", metavar="OLD", help="the bot it must beat")
    test = parser.add_argument_group("the test")
    test.add_argument("--elo0", type=float, default=0.0, help="Elo of H0, the new bot not better (default 0)")
    test.add_argument("--elo1", type=float, default=10.0, help="Elo of H1, the new bot better (default 10)")
    test.add_argument("--alpha", type=float, default=0.05, help="false positive rate (default 0.05)")
    test.add_argument("--beta", type=float, default=0.05, help="false negative rate (default 0.05)")
    test.add_argument(
        "--max-games",
        type=int,
        default=DEFAULT_MAX_GAMES,
        help=f"stop undecided after this (default {DEFAULT_MAX_GAMES})",
    )
    test.add_argument(
        "--batch", type=int, default=DEFAULT_BATCH, help=f"games between looks, even (default {DEFAULT_BATCH})"
    )
    parser.add_argument(
        "--seed", type=int, help="the deals: the same seed plays the same deals (default: a random seed, printed)"
    )
    parser.add_argument("--ruleset", choices=RULESETS, default=STANDARD, help="rules to play (default standard)")
    parser.add_argument("--in-process", action="store_true", help="trusted bots only: no sandbox, in this process")
    add_jobs_argument(parser)
    add_limit_arguments(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print a machine-readable summary instead of the text")
    output.add_argument(
        "--progress", action="store_true", help="a line per batch on stderr even when stderr is no terminal"
    )
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    sources = resolve_sources([args.new, args.old])
    try:
        bounds = Bounds(args.elo0, args.elo1, args.alpha, args.beta)
    except ValueError as error:
        raise UsageError(str(error)) from None
    if not 2 <= args.batch <= MAX_GAMES or args.batch % 2:
        raise UsageError(f"--batch must be an even number of games from 2 to {MAX_GAMES:,} (got {args.batch})")
    if not args.batch <= args.max_games <= MOST_GAMES:
        raise UsageError(f"--max-games must be from --batch ({args.batch}) to {MOST_GAMES:,} (got {args.max_games})")
    if args.seed is None:
        args.seed = new_seed()
    if not 0 <= args.seed < 2**63:
        raise UsageError(f"--seed must be from 0 to 2**63 - 1 (got {args.seed})")
    limits = match_limits(args)
    names = [source.name for source in sources]
    test = Sprt(bounds)
    failures = [0, 0]
    games = 0
    verbose = args.progress or sys.stderr.isatty()
    jobs = jobs_of(args) if args.max_games >= args.batch + 2 else 1  # one batch: nothing to share

    def look(result: MatchResult) -> bool:
        """One batch into the test, in order: whether to play on."""
        nonlocal games
        never_loaded = bots_never_loaded(result)
        if never_loaded:
            raise BotsForfeited("; ".join(never_loaded.values()))
        record_pairs(test, result, failures)
        games += result.spec.games
        if verbose:
            print(f"sprt: {games} games: {summary_line(test)}", file=sys.stderr, flush=True)
        return test.status() == CONTINUE

    try:
        with contextlib.redirect_stdout(sys.stderr):  # a bot's print() stays out of the verdict
            batches = batch_specs(args)
            if jobs == 1:
                for spec in batches:
                    if not look(play(spec, sources, limits, lambda record: None, in_process=args.in_process)):
                        break
            else:
                with GamePool(jobs) as pool:
                    batch_jobs = (match_job(spec, sources, limits, in_process=args.in_process) for spec in batches)
                    play_in_pool(pool, with_whole_shards(batch_jobs), on_match=lambda index, result: look(result))
    except (CommandError, KeyboardInterrupt):
        if games:  # what was played is still worth reading (if a reader is left: SIGHUP, | head)
            with contextlib.suppress(OSError):
                report(args, test, names, games, failures, "aborted")
        raise
    report(args, test, names, games, failures, test.status() if test.status() != CONTINUE else "undecided")
    if any(failures):
        failed = [f"{name!r} {count}" for name, count in zip(names, failures) if count]
        raise BotsForfeited(f"bots failed in some games (each a lost game): {', '.join(failed)}")
    return 0


def batch_specs(args: argparse.Namespace) -> Iterator[MatchSpec]:
    """The batches, in order, each a match of its own seed: whole deal pairs, up to --max-games."""
    games = 0
    while games + 2 <= args.max_games:
        size = min(args.batch, (args.max_games - games) // 2 * 2)
        yield MatchSpec(
            num_players=2, games=size, ruleset=args.ruleset, seed=batch_seed(args.seed, games // args.batch)
        )
        games += size


def with_whole_shards(jobs: Iterator[MatchJob]) -> Iterator[MatchJob]:
    """A batch is played by one worker (its bots started once): the workers share the batches."""
    for job in jobs:
        yield dataclasses.replace(job, shard_games=job.spec.games)


def report(
    args: argparse.Namespace, test: Sprt, names: list[str], games: int, failures: list[int], outcome: str
) -> None:
    if args.json:
        print(json.dumps(json_summary(test, names, games, failures, outcome, args.ruleset, args.seed), indent=2))
    else:
        shown = [safe_text(name) for name in names]  # bot-chosen: file names
        print(text_summary(test, shown, games, failures, outcome, args.ruleset, args.seed))


def record_pairs(test: Sprt, result: MatchResult, failures: list[int]) -> None:
    """Add each deal's pair of games to the test: the new bot's points (a win 1, a shared win
    1/2, a forfeit 0, as the ranks already say)."""
    points: dict[int, float] = {}
    for game in result.games:
        seat = game.seats.index(NEW)
        winners = game.ranks.count(1)
        points[game.deal] = points.get(game.deal, 0.0) + (1.0 / winners if game.ranks[seat] == 1 else 0.0)
        for failure in game.failures:
            failures[game.seats[failure.seat]] += 1
    for deal_points in points.values():
        test.add_pair(deal_points)


def _elo_text(value: float) -> str:
    return f"{value:+.0f}" if math.isfinite(value) else ("+inf" if value > 0 else "-inf")


def summary_line(test: Sprt) -> str:
    elo, low, high = test.elo()
    bounds = test.bounds
    return (
        f"new scores {test.score():.3f} a game, Elo {_elo_text(elo)} (95%: {_elo_text(low)} to {_elo_text(high)}), "
        f"LLR {test.llr():.2f} in [{bounds.lower:.2f}, {bounds.upper:.2f}]"
    )


def verdict(outcome: str, names: list[str], bounds: Bounds) -> str:
    new, old = names
    if outcome == H1:
        return f"H1 accepted: {new} is stronger than {old} (the evidence favours +{bounds.elo1:g} Elo over {bounds.elo0:+g})"
    if outcome == H0:
        return f"H0 accepted: {new} is not stronger than {old} by {bounds.elo1:+g} Elo (the evidence favours {bounds.elo0:+g})"
    if outcome == "aborted":
        return "aborted: the test stopped before it decided (the error follows)"
    return "undecided: --max-games reached before the test decided; play more games or widen elo0..elo1"


def text_summary(
    test: Sprt, names: list[str], games: int, failures: list[int], outcome: str, ruleset: str, seed: int
) -> str:
    bounds = test.bounds
    counts = " / ".join(str(count) for count in test.counts)
    lines = [
        f"SPRT: {names[NEW]} (new) against {names[OLD]} (old), {ruleset}, H0 {bounds.elo0:+g} Elo, "
        f"H1 {bounds.elo1:+g} Elo, alpha {bounds.alpha:g}, beta {bounds.beta:g}, seed {seed}",
        f"{games} games, {test.pairs} deal pairs; {summary_line(test)}",
        f"pairs by the new bot's points (0 / 0.5 / 1 / 1.5 / 2): {counts}",
    ]
    if any(failures):
        lines.append(f"failures (each a lost game): {names[NEW]} {failures[NEW]}, {names[OLD]} {failures[OLD]}")
    lines.append(verdict(outcome, names, bounds))
    return "\n".join(lines)


def json_summary(
    test: Sprt, names: list[str], games: int, failures: list[int], outcome: str, ruleset: str, seed: int
) -> dict[str, Any]:
    elo, low, high = test.elo()
    bounds = test.bounds

    def finite(value: float) -> float | None:
        return value + 0.0 if math.isfinite(value) else None  # + 0.0: no "-0.0"

    return {
        "new": names[NEW],
        "old": names[OLD],
        "ruleset": ruleset,
        "seed": seed,
        "elo0": bounds.elo0,
        "elo1": bounds.elo1,
        "alpha": bounds.alpha,
        "beta": bounds.beta,
        "games": games,
        "pairs": test.counts,
        "score": test.score(),
        "elo": finite(elo),
        "elo_interval": [finite(low), finite(high)],
        "llr": test.llr(),
        "llr_bounds": [bounds.lower, bounds.upper],
        "failures": {"new": failures[NEW], "old": failures[OLD]},
        "result": outcome,
    }
