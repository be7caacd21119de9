"""``lineit tournament``: a round robin, Swiss or elimination tournament between bots, played here.

The pairings come from lineit.formats, the same code that pairs tournaments on the server;
each pairing is a match of several games (duplicate deals) decided by mean rank, then mean score.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lineit import formats
from lineit.botkit.limits import Limits
from lineit.botkit.parallel import GamePool
from lineit.botkit.referee import GameRecord, MatchResult
from lineit.botkit.safe_paths import secure_folder
from lineit.botkit.schedule import MatchSpec, new_seed
from lineit.botkit.sources import BUILTIN_NAMES, BotSource
from lineit.botkit.untrusted import safe_text
from lineit.engine import RULESETS, STANDARD
from lineit.formats.bracket import FINAL, LOSERS, WINNERS, tree_order

from .errors import BotsForfeited, CommandError, UsageError
from .match import (
    add_jobs_argument,
    bot_failures,
    bots_never_loaded,
    jobs_of,
    match_job,
    play,
    play_in_pool,
    prepare_replay_folder,
    resolve_entrants,
    write_replay,
)
from .progress import Progress
from .report import format_rows

EPILOG = f"""\
A bot is a built-in name ({", ".join(BUILTIN_NAMES)}), a .py file, a .zip package with bot.py
at its root, or a folder holding bot.py; bots are seeded in the order given. Bots run in the
sandbox unless --in-process is given (only for code you trust). The formats, pairing rules and
tie-breaks are explained in docs/tournaments.md.

With --jobs N (default: one per usable core; 1 with --in-process) the matches of a round, and
the games of each, are played N at a time by worker processes, each with its own sandboxed
bots; the rounds, standings, bracket and replays are the ones --jobs 1 gives.

examples:
  lineit tournament random greedy heuristic search --format round-robin
  lineit tournament mybot.py greedy heuristic random random --format swiss --rounds 3
  lineit tournament a.py b.py c.py d.py e.py f.py --format single --table-size 3
  lineit tournament mybot.py greedy heuristic random --format double --replays out/
  lineit tournament a.py b.py c.py d.py e.py f.py g.py --format double --table-size 3"""

DEFAULT_GAMES_PER_TABLE_SEAT = 4
# The options a flag sets, each read by the formats that the registry says read it.
OPTION_FLAGS = {"rounds": "--rounds", "cycles": "--cycles", "advance": "--advance"}


def add_parser(commands: Any) -> None:
    parser = commands.add_parser(
        "tournament",
        help="play a tournament between bots (round robin, Swiss, elimination)",
        description="Play a tournament between bots and print the standings (and the bracket).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("bots", nargs="+", metavar="BOT", help="the entrants: built-in names, files, zips or folders")
    parser.add_argument(
        "--format", choices=formats.format_names(), default=formats.ROUND_ROBIN, help="default round-robin"
    )
    parser.add_argument("--table-size", type=int, default=2, metavar="K", help="seats per table, 2 to 5 (default 2)")
    parser.add_argument("--rounds", type=int, metavar="N", help="Swiss only: rounds (default ceil(log2 bots))")
    parser.add_argument("--cycles", type=int, metavar="N", help="round robin only: play the schedule N times")
    parser.add_argument("--advance", type=int, metavar="A", help="elimination only: how many of each table go on")
    parser.add_argument("--no-reset", action="store_true", help="double elimination: no second grand final")
    parser.add_argument(
        "--games-per-pairing",
        type=int,
        metavar="G",
        help=f"games of each match (default {DEFAULT_GAMES_PER_TABLE_SEAT} x table size: whole duplicate deals)",
    )
    parser.add_argument("--seed", type=int, help="tournament seed: decks and draws (default: a random seed, printed)")
    parser.add_argument("--ruleset", choices=RULESETS, default=STANDARD, help="rules to play (default standard)")
    parser.add_argument("--replays", metavar="DIR", type=Path, help="write every game's replay under DIR")
    parser.add_argument("--in-process", action="store_true", help="trusted bots only: no sandbox, in this process")
    add_jobs_argument(parser)
    parser.add_argument("--json", action="store_true", help="print the final state and standings as JSON")
    parser.add_argument("--progress", action="store_true", help="show the progress bar even when stderr is no terminal")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    if args.seed is None:
        args.seed = new_seed()
    sources = resolve_entrants(args.bots)
    options = tournament_options(args)
    entrants = [formats.Entrant(id=i, rating=float(len(sources) - i), name=s.name) for i, s in enumerate(sources)]
    try:
        state = formats.first_round(args.format, entrants, options, seed=args.seed)
    except formats.FormatError as error:
        raise UsageError(str(error)) from None
    replays = prepare_replay_folder(args.replays)
    runner = Runner(args, sources, state, replays)
    jobs = jobs_of(args)
    with contextlib.redirect_stdout(sys.stderr) if args.json else contextlib.nullcontext():
        print(describe(state, args))
        with GamePool(jobs) if jobs > 1 else contextlib.nullcontext() as pool:
            runner.pool = pool
            state = runner.play_all(state)
    if args.json:
        print(json.dumps(json_report(state), indent=2))
    else:
        print()
        print(standings_table(state))
        if formats.get_format(args.format).has_bracket:
            print()
            print(bracket_text(state))
        if replays is not None:
            print(f"\nReplays: {safe_text(replays)}/round-NN-table-NN/ (see them with 'lineit show FILE')")
    if runner.never_loaded():
        raise BotsForfeited("; ".join(runner.never_loaded()))
    if runner.failed:
        names = [sources[entrant].name for entrant in sorted(runner.failed)]
        raise BotsForfeited(f"{len(names)} bot(s) failed in some games: {', '.join(map(repr, names))}")
    return 0


def tournament_options(args: argparse.Namespace) -> formats.Options:
    for option, flag in OPTION_FLAGS.items():
        readers = formats.option_readers(option)
        if getattr(args, option) is not None and args.format not in readers:
            raise UsageError(f"{flag} is for --format {' or '.join(readers)}")
    games = args.games_per_pairing
    if games is None:
        games = DEFAULT_GAMES_PER_TABLE_SEAT * args.table_size
    try:
        MatchSpec(num_players=2, games=games, ruleset=args.ruleset, seed=args.seed)
    except ValueError as error:
        raise UsageError(str(error)) from None
    return formats.Options(
        table_size=args.table_size,
        rounds=args.rounds,
        cycles=args.cycles if args.cycles is not None else 1,
        advance=args.advance,
        grand_final_reset=not args.no_reset,
        games_per_pairing=games,
    )


class Runner:
    """Plays every round's matches and feeds their outcomes back to the format."""

    def __init__(
        self, args: argparse.Namespace, sources: list[BotSource], state: formats.TournamentState, replays: Path | None
    ) -> None:
        self.args = args
        self.sources = sources
        self.replays = replays
        self.games = state.options.games_per_pairing
        self.progress = Progress(
            estimated_matches(state) * self.games, sys.stderr, enabled=args.progress or sys.stderr.isatty()
        )
        self.done = 0
        self.loaded: dict[int, list[bool]] = {}  # entrant -> per match: did it ever load
        self.load_messages: dict[int, str] = {}
        self.failed: set[int] = set()  # entrants that failed in at least one game
        self.pool: GamePool | None = None  # plays a round's matches at once, if there is one

    def play_all(self, state: formats.TournamentState) -> formats.TournamentState:
        self.progress.update(0)
        try:
            while state.pending is not None:
                pending = state.pending
                pairings = [pairing for pairing in pending.pairings if not pairing.bye]
                with contextlib.redirect_stdout(sys.stderr):  # a bot's print() stays out of the tables
                    results = self.play_round(pairings)
                outcomes = [self.outcome(pairing, result) for pairing, result in zip(pairings, results)]
                state = formats.next_round(state, outcomes)
                print(round_lines(state, pending.number))
        finally:
            self.progress.finish()
        return state

    def play_round(self, pairings: list[formats.Pairing]) -> list[MatchResult]:
        """Every match of a round, one after the other or in the pool: the same results, the
        same replays, written in the same order."""
        specs = [self.spec(pairing) for pairing in pairings]
        on_games = [self.game_writer(pairing) for pairing in pairings]
        if self.pool is None:
            return [
                play(spec, self.entrants_of(pairing), Limits(), on_game, in_process=self.args.in_process)
                for pairing, spec, on_game in zip(pairings, specs, on_games)
            ]
        results: list[MatchResult] = []

        def on_match(index: int, result: MatchResult) -> bool:
            results.append(result)
            return True

        jobs = [
            match_job(spec, self.entrants_of(pairing), Limits(), in_process=self.args.in_process)
            for pairing, spec in zip(pairings, specs)
        ]
        play_in_pool(self.pool, jobs, on_game=lambda index, record: on_games[index](record), on_match=on_match)
        return results

    def spec(self, pairing: formats.Pairing) -> MatchSpec:
        return MatchSpec(
            num_players=len(pairing.entrants), games=self.games, ruleset=self.args.ruleset, seed=pairing.match_seed
        )

    def entrants_of(self, pairing: formats.Pairing) -> list[BotSource]:
        return [self.sources[entrant] for entrant in pairing.entrants]

    def game_writer(self, pairing: formats.Pairing) -> Callable[[GameRecord], None]:
        """What each game of the pairing's match does once played: its replay, the progress bar."""
        folder = None
        if self.replays is not None:
            folder = self.replays / f"round-{pairing.round:02d}-table-{pairing.table:02d}"
            try:  # ours alone, even inside a shared replay folder (lineit/botkit/safe_paths.py)
                secure_folder(folder, mode=0o755)
            except OSError as error:
                raise CommandError(f"cannot write replays into {folder}: {error.strerror or error}") from None

        def on_game(record: GameRecord) -> None:
            self.done += 1
            self.progress.total = max(self.progress.total, self.done)
            if folder is not None:
                write_replay(folder, record, self.games)
            self.progress.update(self.done, note=f"round {pairing.round}")

        return on_game

    def outcome(self, pairing: formats.Pairing, result: MatchResult) -> formats.MatchOutcome:
        self.note_loading(pairing, result)
        games = [
            formats.GameResult(
                entrants=tuple(pairing.entrants[index] for index in game.seats),
                ranks=tuple(game.ranks),
                scores=tuple(float(score) for score in game.scores),
            )
            for game in result.games
        ]
        return formats.decide_match(pairing, games)

    def note_loading(self, pairing: formats.Pairing, result: MatchResult) -> None:
        never_loaded = bots_never_loaded(result)  # by the entrant's index in this match
        self.failed.update(pairing.entrants[index] for index in bot_failures(result))
        for index, entrant in enumerate(pairing.entrants):
            self.loaded.setdefault(entrant, []).append(index not in never_loaded)
            if index in never_loaded:
                self.load_messages.setdefault(entrant, never_loaded[index])

    def never_loaded(self) -> list[str]:
        return [
            self.load_messages[entrant]
            for entrant, matches in sorted(self.loaded.items())
            if matches and not any(matches)
        ]


def estimated_matches(state: formats.TournamentState) -> int:
    """Matches the tournament will play (elimination: before byes are known, an upper bound)."""
    rounds = formats.planned_rounds(state)
    tables = len(state.entrants) // state.options.table_size
    if rounds is not None:
        return rounds * tables
    filled = formats.bracket_state(state)
    if filled is not None:
        return sum(1 for match in filled.bracket.matches.values() if match.id != "GF2")
    return tables  # not known in advance: the bar's total grows as rounds are played


def describe(state: formats.TournamentState, args: argparse.Namespace) -> str:
    options = state.options
    format = formats.get_format(state.format)
    return ", ".join(
        [
            f"Tournament: {format.label}, {len(state.entrants)} bots, tables of {options.table_size}",
            *format.describe(options),
            f"{options.games_per_pairing} games per pairing (duplicate deals)",
            f"ruleset {args.ruleset}, seed {state.seed}",
        ]
    )


def names_of(state: formats.TournamentState) -> dict[int, str]:
    """The entrants' names for the text output: bot-chosen (a file name), so shown safely."""
    return {entrant.id: safe_text(entrant.name) for entrant in state.entrants}


def round_lines(state: formats.TournamentState, number: int) -> str:
    names = names_of(state)
    round_ = state.rounds[number - 1]
    lines = [f"Round {number}:"]
    outcomes = {(o.round, o.table): o for o in round_.outcomes or []}
    for pairing in round_.pairings:
        label = f"  table {pairing.table}" + (f" [{pairing.slot}]" if pairing.slot else "")
        if pairing.bye:
            lines.append(f"{label}: {names[pairing.entrants[0]]} has a bye")
            continue
        outcome = outcomes[(pairing.round, pairing.table)]
        cells = [
            f"{result.place}. {names[result.entrant]} (rank {result.mean_rank:.2f}, score {result.mean_score:.1f})"
            for result in outcome.results
        ]
        lines.append(f"{label}: " + "  ".join(cells))
    return "\n".join(lines)


def standings_table(state: formats.TournamentState) -> str:
    names = names_of(state)
    elimination = formats.get_format(state.format).has_bracket
    header = ["place", "bot", "seed", "points", "matches", "byes"]
    header += ["out in"] if elimination else ["Buchholz", "game score", "head-to-head"]
    rows = [header]
    for row in formats.final_standings(state):
        cells = [str(row.place), names[row.entrant], str(row.seed), f"{row.points:g}", str(row.matches), str(row.byes)]
        if elimination:
            cells.append(row.eliminated_in or ("champion" if row.place == 1 else "-"))
        else:
            cells += [f"{row.buchholz:.2f}", f"{row.game_score:.1f}", f"{row.head_to_head:g}"]
        rows.append(cells)
    return "\n".join(
        ["Standings:", *format_rows(rows, right={0, 2, 3, 4, 5, 7, 8} if not elimination else {0, 2, 3, 4, 5})]
    )


SECTION_TITLES = {WINNERS: "Winners bracket", LOSERS: "Losers bracket", FINAL: "Final"}


def bracket_text(state: formats.TournamentState) -> str:
    filled = formats.bracket_state(state)
    if filled is None:
        raise ValueError(f"a {state.format} tournament has no bracket")
    names = names_of(state)
    seeds = state.seeds
    bracket = filled.bracket

    def who(entrant: int | None) -> str:
        return "(empty)" if entrant is None else f"{names[entrant]} [{seeds[entrant]}]"

    lines = ["Bracket ([n] = seed):"]
    for section in (WINNERS, LOSERS, FINAL):
        rounds = bracket.round_ids(section)
        if section == FINAL:
            rounds = [[match_id for ids in rounds for match_id in ids]] if rounds else []
        for number, ids in enumerate(rounds, start=1):
            if section == WINNERS:
                ids = [
                    m
                    for m in tree_order(bracket, bracket.matches[ids[0]].round)
                    if bracket.matches[m].section == section
                ]
            title = SECTION_TITLES[section] + (f", round {number}" if section != FINAL else "")
            lines.append(f"  {title}")
            for match_id in ids:
                match = filled.matches[match_id]
                if match.status == "skipped":
                    text = "not needed"
                elif match.status == "bye":
                    text = ", ".join(who(entrant) for entrant in match.order) + " go on (bye)"
                elif match.status == "empty":
                    text = "(empty)"
                elif match.order:
                    text = "  ".join(f"{place}. {who(entrant)}" for place, entrant in enumerate(match.order, start=1))
                else:
                    text = " v ".join(who(entrant) for entrant in match.entrants) or "(waiting)"
                lines.append(f"    {match_id:<6} {text}")
    champion = filled.champion
    lines.append(f"  Champion: {who(champion) if champion is not None else '(undecided)'}")
    return "\n".join(lines)


def json_report(state: formats.TournamentState) -> dict[str, Any]:
    names = {entrant.id: entrant.name for entrant in state.entrants}  # JSON escapes what it must
    return {
        "format": "lineit-tournament",
        "format_version": 1,
        "state": state.to_dict(),
        "standings": [{**row.to_dict(), "name": names[row.entrant]} for row in formats.final_standings(state)],
        "bracket": formats.bracket_json(state),
    }
