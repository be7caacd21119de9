"""``lineit match``: play a match between 2 to 5 bots and print the results table."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import functools
import json
import stat
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lineit.botkit.failures import LOAD, STOPPED
from lineit.botkit.limits import Limits
from lineit.botkit.parallel import MAX_JOBS, GamePool, MatchJob, WorkerLost, default_jobs, shard_size
from lineit.botkit.players import InProcessPlayer, Player, StoppedPlayer
from lineit.botkit.referee import GameRecord, MatchResult, PlatformFailure, run_match
from lineit.botkit.safe_paths import secure_folder, write_file
from lineit.botkit.schedule import MatchSpec, new_seed
from lineit.botkit.sources import BUILTIN_NAMES, BotNotFound, BotSource, resolve_bot
from lineit.engine import MAX_PLAYERS, MIN_PLAYERS, RULESETS, STANDARD

from .errors import BotsForfeited, CommandError, UsageError
from .progress import Progress
from .report import json_summary, replay_name, results_table

DEFAULT_GAMES = 100

EPILOG = f"""\
A bot is a built-in name ({", ".join(BUILTIN_NAMES)}), a .py file, a .zip package with bot.py
at its root, or a folder holding bot.py. Bots run in the sandbox, exactly as on the server,
unless --in-process is given (only for code you trust: it runs with your own rights).

--jobs N plays N games at once, each worker process on its own CPU with its own sandboxed
bots (default: one per usable core; 1 with --in-process). The table and the replays are the
ones --jobs 1 gives for the same seed, but for a bot that keeps something from one game to the
next in its process, or draws on its time bank: each worker starts its own bots, and the bank
is per run of consecutive games a worker plays. See "Testing locally" in docs/bot-interface.md.

examples:
  lineit match mybot.py heuristic --games 200
  lineit match mybot.py random random --replays out/ --seed 7
  lineit match mybot.zip greedy --json > result.json"""


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "match",
        help="play a match between 2 to 5 bots",
        description="Play a match between 2 to 5 bots and print the results table.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bots", nargs="+", metavar="BOT", help="2 to 5 bots: built-in names, files, zips or folders")
    parser.add_argument("--games", type=int, default=DEFAULT_GAMES, help=f"games to play (default {DEFAULT_GAMES})")
    parser.add_argument(
        "--seed",
        type=int,
        help="match seed: the same seed deals the same decks (default: a random seed, printed with the results)",
    )
    parser.add_argument("--ruleset", choices=RULESETS, default=STANDARD, help="rules to play (default standard)")
    parser.add_argument("--no-rotate", action="store_true", help="keep every bot in its seat (without duplicate deals)")
    parser.add_argument(
        "--no-duplicate",
        action="store_true",
        help="a new deck every game (default: each deck is played once per seat rotation)",
    )
    parser.add_argument("--replays", metavar="DIR", type=Path, help="write one replay file per game into DIR")
    parser.add_argument("--in-process", action="store_true", help="trusted bots only: no sandbox, in this process")
    add_jobs_argument(parser)
    add_limit_arguments(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print a machine-readable summary instead of the table")
    output.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is no terminal")
    parser.set_defaults(handler=run)


def jobs_count(text: str) -> int:
    """--jobs: a whole number from 1 to MAX_JOBS (argparse turns the refusal into a usage error)."""
    try:
        jobs = int(text)
    except ValueError:
        jobs = 0
    if not 1 <= jobs <= MAX_JOBS:
        raise argparse.ArgumentTypeError(f"must be a whole number of games at once from 1 to {MAX_JOBS}, not {text!r}")
    return jobs


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--jobs",
        type=jobs_count,
        metavar="N",
        help=f"games played at once, each in its own worker process (default: the usable cores, {default_jobs()} "
        "here; 1 with --in-process)",
    )


def jobs_of(args: argparse.Namespace) -> int:
    """--jobs, or its default: one per usable core; one with --in-process, whose bots run in
    this process (with --jobs N they run in N worker processes)."""
    if args.jobs is not None:
        return int(args.jobs)
    return 1 if args.in_process else default_jobs()


def add_limit_arguments(parser: argparse.ArgumentParser) -> None:
    """The match limits' options (match_limits reads them)."""
    limits = parser.add_argument_group("limits (defaults as on the server)")
    limits.add_argument("--move-seconds", type=float, metavar="S", help="free thinking time per decision")
    limits.add_argument("--bank-seconds", type=float, metavar="S", help="time bank for the match, beyond the free time")
    limits.add_argument("--move-timeout", type=float, metavar="S", help="hard cap on one decision")
    limits.add_argument("--startup-seconds", type=float, metavar="S", help="time to load the bot and start a game")
    limits.add_argument("--memory-mb", type=int, metavar="MB", help="memory cap per bot (sandbox only)")
    limits.add_argument("--max-failures", type=int, metavar="N", help="failed games before a bot is stopped")


def run(args: argparse.Namespace) -> int:
    sources = resolve_sources(args.bots)
    spec = match_spec(args, len(sources))
    limits = match_limits(args)
    replays = prepare_replay_folder(args.replays)
    progress = Progress(spec.games, sys.stderr, enabled=args.progress or sys.stderr.isatty())
    done = 0

    def on_game(record: GameRecord) -> None:
        nonlocal done
        done += 1
        if replays is not None:
            write_replay(replays, record, spec.games)
        progress.update(done)

    progress.update(0)
    try:
        # A bot's print() must not end up in the table or the JSON on stdout.
        with contextlib.redirect_stdout(sys.stderr):
            result = play_match(spec, sources, limits, on_game, in_process=args.in_process, jobs=jobs_of(args))
    finally:
        progress.finish()
    if args.json:
        print(json.dumps(json_summary(result, sources, replays), indent=2))
    else:
        print(results_table(result, replays))
    failed = bot_failures(result)
    if failed:
        raise BotsForfeited("; ".join(failed.values()))
    return 0


def resolve_sources(specs: list[str]) -> list[BotSource]:
    if not MIN_PLAYERS <= len(specs) <= MAX_PLAYERS:
        raise UsageError(f"a match needs {MIN_PLAYERS} to {MAX_PLAYERS} bots, got {len(specs)}")
    return resolve_entrants(specs)


def resolve_entrants(specs: list[str]) -> list[BotSource]:
    """The bots of a match, a tournament or an sprt, each refused at once (UsageError) unless it
    names a built-in, a .py file, a .zip package or a folder with bot.py."""
    sources = []
    for spec in specs:
        refuse_special_file(spec)
        try:
            source = resolve_bot(spec)
        except BotNotFound as error:
            raise UsageError(str(error)) from None
        refuse_unstageable(source)
        sources.append(source)
    return distinct_names(sources)


def refuse_special_file(spec: str) -> None:
    """A named pipe, a device or a socket (or a link to one) is no bot, whatever its name ends in:
    opening a pipe waits for a writer for good, and /dev/zero never ends."""
    try:
        mode = Path(spec).expanduser().stat().st_mode
    except (OSError, ValueError):
        return  # no such file (or a built-in's name): resolve_bot says what it is
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        raise UsageError(
            f"{spec}: not a regular file (a named pipe, a device or a socket): "
            "a bot is a .py file, a .zip package or a folder with bot.py"
        )


def distinct_names(sources: list[BotSource]) -> list[BotSource]:
    """``random random`` becomes ``random`` and ``random#2``, so the table tells them apart."""
    seen: dict[str, int] = {}
    named = []
    for source in sources:
        seen[source.name] = seen.get(source.name, 0) + 1
        count = seen[source.name]
        named.append(source if count == 1 else dataclasses.replace(source, name=f"{source.name}#{count}"))
    return named


def refuse_unstageable(source: BotSource) -> None:
    """Stage the bot once as the sandbox will (and throw that away): a package it would refuse to
    unpack (an unsafe path, a link, an entry given twice, a zip bomb) would fail every game as a
    load failure, so it is refused now, like a zip without bot.py, with the sandbox's reason.
    In process too: the same file must get the same answer."""
    if source.builtin or source.path.is_dir():
        return  # a folder is bound as it is, never unpacked
    try:
        from lineit.sandbox.runtime import BotStagingError, stage_bot
    except ImportError:
        return  # no sandbox here: --in-process loads the bot, and says why it cannot
    try:
        stage_bot(source.path).cleanup()
    except BotStagingError as error:
        raise UsageError(str(error)) from None
    except OSError as error:
        raise CommandError(f"{source.path}: cannot read: {error.strerror or error}") from None


def match_spec(args: argparse.Namespace, num_players: int) -> MatchSpec:
    try:
        return MatchSpec(
            num_players=num_players,
            games=args.games,
            ruleset=args.ruleset,
            seed=new_seed() if args.seed is None else args.seed,
            rotate_seats=not args.no_rotate,
            duplicate_deals=not args.no_duplicate,
        )
    except ValueError as error:
        raise UsageError(str(error)) from None


LIMIT_OPTIONS = {
    "move_seconds": "move_seconds",
    "bank_seconds": "bank_seconds",
    "move_timeout": "move_timeout_seconds",
    "startup_seconds": "startup_seconds",
    "memory_mb": "memory_mb",
    "max_failures": "max_failures",
}


def match_limits(args: argparse.Namespace) -> Limits:
    chosen = {field: getattr(args, option) for option, field in LIMIT_OPTIONS.items()}
    try:
        return Limits(**{field: value for field, value in chosen.items() if value is not None})
    except ValueError as error:
        raise UsageError(str(error)) from None


def prepare_replay_folder(folder: Path | None) -> Path | None:
    """The replay folder, made if need be and known to take files before anything is played
    (match and tournament); the probe leaves nothing behind. It may be a folder others write in
    only if it is sticky (``/tmp``), and it and every folder and link on its way must be root's or
    this user's (lineit/botkit/safe_paths.py): a root ``lineit`` never writes where a link
    another user planted points."""
    if folder is None:
        return None
    try:
        secure_folder(folder, mode=0o755, shared=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as error:
        raise CommandError(f"cannot write replays into {folder}: {error.strerror or error}") from None
    return folder


def write_replay(folder: Path, record: GameRecord, games: int) -> None:
    """The game's replay, written whole under a fresh name and renamed into place: a link or a
    file another user planted at its name is replaced, never written through."""
    path = folder / replay_name(record.index, games)
    try:
        write_file(path, (json.dumps(record.replay, separators=(",", ":")) + "\n").encode())
    except OSError as error:
        raise CommandError(f"cannot write {path}: {error.strerror or error}") from None


def play_match(
    spec: MatchSpec,
    sources: list[BotSource],
    limits: Limits,
    on_game: Callable[[GameRecord], None],
    *,
    in_process: bool,
    jobs: int,
) -> MatchResult:
    """The whole match, in this process (one job, or a match too short to share) or in shards
    played by ``jobs`` worker processes, with the same games in the same order either way."""
    job = match_job(spec, sources, limits, in_process=in_process)
    if jobs == 1 or spec.games <= shard_size(spec, jobs):
        return play(spec, sources, limits, on_game, in_process=in_process)
    results: list[MatchResult] = []

    def on_match(index: int, result: MatchResult) -> bool:
        results.append(result)
        return True

    with GamePool(jobs) as pool:
        play_in_pool(pool, [job], on_game=lambda index, record: on_game(record), on_match=on_match)
    return results[0]


def match_job(spec: MatchSpec, sources: list[BotSource], limits: Limits, *, in_process: bool) -> MatchJob:
    """A match for a GamePool: its shards are played by ``play_shard`` in the workers."""
    play_shard = functools.partial(play_shard_of, sources, limits, in_process)
    return MatchJob(spec=spec, play=play_shard, max_failures=limits.max_failures)


def play_shard_of(
    sources: list[BotSource],
    limits: Limits,
    in_process: bool,
    spec: MatchSpec,
    stopped: frozenset[int],
    on_game: Callable[[GameRecord], None],
) -> MatchResult:
    """What a worker plays (botkit.parallel.Play): a shard of a match."""
    return play(spec, sources, limits, on_game, in_process=in_process, stopped=stopped)


def play_in_pool(pool: GamePool, jobs: Any, **callbacks: Any) -> None:
    """GamePool.play, its lost worker told as a command error."""
    try:
        pool.play(jobs, **callbacks)
    except WorkerLost as error:
        raise CommandError(str(error)) from None


def play(
    spec: MatchSpec,
    sources: list[BotSource],
    limits: Limits,
    on_game: Callable[[GameRecord], None],
    *,
    in_process: bool,
    stopped: frozenset[int] = frozenset(),
) -> MatchResult:
    try:
        if in_process:
            players: list[Player] = [
                StoppedPlayer(source.name, limits.max_failures) if entrant in stopped else InProcessPlayer(source)
                for entrant, source in enumerate(sources)
            ]
            return run_match(spec, players, limits=limits, on_game=on_game)
        return run_sandboxed(spec, sources, limits, on_game, stopped)
    except PlatformFailure as error:
        output = f"; sandbox output: {error.detail.strip()[-500:]}" if error.detail.strip() else ""
        raise CommandError(f"the platform could not run the match: {error}{output}") from None


def run_sandboxed(
    spec: MatchSpec,
    sources: list[BotSource],
    limits: Limits,
    on_game: Callable[[GameRecord], None],
    stopped: frozenset[int] = frozenset(),
) -> MatchResult:
    hint = "run 'lineit doctor' for details, or use --in-process for bots you trust"
    try:
        from lineit.sandbox import SandboxUnavailable, run_sandboxed_match
    except ImportError as error:
        raise CommandError(f"the sandbox is not installed ({error}); {hint}") from None
    try:
        return run_sandboxed_match(spec, sources, limits=limits, on_game=on_game, stopped=stopped)
    except SandboxUnavailable as error:
        raise CommandError(f"no sandbox can run bots on this machine: {error}; {hint}") from None


def bots_never_loaded(result: MatchResult) -> dict[int, str]:
    """A sentence per entrant that did not get past loading in any game it was due to play."""
    sentences = {}
    for entrant, name in enumerate(result.names):
        games = [game for game in result.games if entrant in game.seats]
        messages: list[str] = []
        blocked = 0
        for game in games:
            kinds = {(f.kind, f.message) for f in game.failures if game.seats[f.seat] == entrant and f.decision == -1}
            messages.extend(message for kind, message in kinds if kind == LOAD)
            blocked += any(kind in (LOAD, STOPPED) for kind, _ in kinds)
        if games and messages and blocked == len(games):
            sentences[entrant] = f"bot {name!r} could not be loaded in any game: {messages[0]}"
    return sentences


def bot_failures(result: MatchResult) -> dict[int, str]:
    """A sentence per entrant that failed in at least one game (the exit status says so): why it
    never loaded, or in how many games it failed and how."""
    sentences = bots_never_loaded(result)
    for entrant, name in enumerate(result.names):
        if entrant in sentences:
            continue
        kinds: dict[str, None] = {}
        failed_games = 0
        played = 0
        for game in result.games:
            if entrant not in game.seats:
                continue
            played += 1
            own = [f.kind for f in game.failures if game.seats[f.seat] == entrant]
            failed_games += bool(own)
            kinds.update(dict.fromkeys(own))
        if failed_games:
            sentences[entrant] = f"bot {name!r} failed in {failed_games} of {played} games ({', '.join(kinds)})"
    return dict(sorted(sentences.items()))
