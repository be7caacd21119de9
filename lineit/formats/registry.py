"""What a tournament format is, and the registry that every face asks for them.

A format is one object (a ``TournamentFormat``) that one module registers when imported: its
name (stored in ``TournamentState.format`` and by the platform) and label, the options it reads
and their checks, how it pairs each round, its standings, its planned rounds and, if it has one,
its bracket. ``lineit/formats/__init__.py`` imports the built-in formats' modules in the order
every face lists them; a test, or a bot author trying a format out, may ``register`` one of its
own and ``unregister`` it again.

Who asks: the kit's tournament functions (tournament.py) look the format of a state up here; the
platform takes its format choices, option checks and "bracket or table" from here; the
``lineit tournament`` command its ``--format`` choices, labels and bracket. Nothing outside the
format modules tests a format's name.
"""

from __future__ import annotations

import abc
import re
from collections.abc import Iterator, Mapping

from .bracket import BracketState
from .model import FORMAT_OPTIONS, EntrantId, FormatError, Option, Options, Standing, TournamentState
from .standings import standings as table_standings

# One table of a round: its entrants in seat order (one alone has a bye) and, in a bracket, the
# bracket match it plays (``W1-3``, ``GF``), else None.
Table = tuple[tuple[EntrantId, ...], str | None]

# Short slugs: the platform stores the name in a column of 12 characters.
NAME = re.compile(r"[a-z][a-z0-9-]{0,11}")


class TournamentFormat(abc.ABC):
    """One tournament format. Subclasses set the attributes and write ``pair``; the rest has
    defaults that suit a format that pairs round by round and ranks by points.

    ``tie_breaks``: the fields of ``Standing`` that order its standings after the points, in
    order (the pages show Buchholz where it breaks ties). ``has_bracket``: the format plays along
    a bracket (``bracket`` describes it as data), so the pages and the CLI draw the bracket; the
    others get a cross-table.
    """

    name: str = ""
    label: str = ""
    options: tuple[Option, ...] = ()
    has_bracket: bool = False
    tie_breaks: tuple[str, ...] = ()

    def check(self, entrants: int, options: Options) -> None:
        """Raise FormatError unless ``options`` suit this format with ``entrants`` entrants (the
        checks every format shares, table size and field size, are made before). Default: none."""
        return None

    def prepare(self, entrants: int, options: Options) -> Options:
        """The options the tournament is played with: defaults that depend on the field filled in."""
        return options

    @abc.abstractmethod
    def pair(self, state: TournamentState) -> list[Table] | None:
        """The tables of the round after the state's last (the first round when it has none), or
        None when the tournament is over. A pure function of the state."""

    def standings(self, state: TournamentState) -> list[Standing]:
        """The table after the rounds played so far, best first (default: match points, then
        Buchholz, game score, head-to-head, seed; a bye is worth a win)."""
        return table_standings(state)

    def planned_rounds(self, state: TournamentState) -> int | None:
        """Rounds in all when known in advance, else None."""
        return None

    def bracket(self, state: TournamentState) -> BracketState | None:
        """The bracket filled in with the results so far (formats with ``has_bracket``)."""
        return None

    def describe(self, options: Options) -> list[str]:
        """What a one-line description of a tournament says of its options beyond the table size
        (the CLI's header: "3 rounds")."""
        return []


_formats: dict[str, TournamentFormat] = {}


def register(format: TournamentFormat) -> TournamentFormat:
    """Make ``format`` known to every face, after those registered before it."""
    if not NAME.fullmatch(format.name):
        raise ValueError(f"a format's name is a short slug (a-z, 0-9, -; at most 12), not {format.name!r}")
    if format.name in _formats:
        raise ValueError(f"a format named {format.name!r} is registered already")
    unknown = [option.name for option in format.options if option not in FORMAT_OPTIONS]
    if unknown:
        raise ValueError(f"{format.name} reads options that Options does not have: {', '.join(unknown)}")
    _formats[format.name] = format
    return format


def unregister(name: str) -> None:
    del _formats[name]


def get_format(name: str) -> TournamentFormat:
    try:
        return _formats[name]
    except KeyError:
        raise FormatError(f"unknown format {name!r}; choose one of {', '.join(_formats)}") from None


def all_formats() -> tuple[TournamentFormat, ...]:
    return tuple(_formats.values())


def format_names() -> tuple[str, ...]:
    return tuple(_formats)


class _Choices:
    """The registered formats as (name, label) pairs, read from the registry each time they are
    iterated."""

    def __iter__(self) -> Iterator[tuple[str, str]]:
        return iter([(format.name, format.label) for format in _formats.values()])

    def __repr__(self) -> str:
        return "FORMAT_CHOICES"


# For ``choices=``: a Django model field lists it once, when the model is defined; a DRF field
# or a django-filter filter each time it is made (every serializer and filter set makes its own),
# so a format registered later is offered too.
FORMAT_CHOICES = _Choices()


def option_readers(name: str) -> tuple[str, ...]:
    """The formats that read the option ``name``."""
    return tuple(format.name for format in _formats.values() if any(option.name == name for option in format.options))


def check_options(format: str, options: Mapping[str, object]) -> None:
    """Raise FormatError unless each of ``options`` (as a JSON object gives them) is an option
    that ``format`` reads, of its type. The values' ranges are the format's ``check``."""
    known = {option.name: option for option in FORMAT_OPTIONS}
    unknown = set(options) - set(known)
    if unknown:
        raise FormatError(f"unknown options {', '.join(sorted(unknown))}; allowed: {', '.join(known)}")
    for name, value in sorted(options.items()):
        readers = option_readers(name)
        if format in _formats and format not in readers:
            raise FormatError(f"{name} is an option of {' and '.join(readers)} tournaments, not of {format}")
        known[name].check(value)
