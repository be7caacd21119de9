"""Double elimination at tables of 3 to 5, the top ``a`` of each table going on (1 <= a <= k/2).

Nobody is out before finishing outside the top ``a`` of a table twice (with one exception in
the grand final, below). The bracket is fixed in advance:

* Upper bracket (``W``): the single-elimination bracket of bracket.py, byes included. At every
  upper table, the upper final too, the top ``a`` go on and the others *drop* to the lower
  bracket.
* Droppers of upper round r, in order: place a+1 of the round's tables in display order, place
  a+2 in reverse, and so on; the whole list is reversed when r is even (the alternating order
  of two-seat brackets), so that droppers land far from where they came from.
* Lower bracket (``L``): everyone in it has lost once, and a lower table's top ``a`` go on, the
  others are out. Its rounds are built forward: before the droppers of upper round r arrive,
  the lower survivors play among themselves while they outnumber the droppers (and are more
  than ``a``); then survivors and droppers play together, survivors dealt to the tables first,
  droppers after them, in snake order. After the upper final's droppers, lower rounds go on
  until ``a`` are left. A lower round of m entrants plays at ceil(m/k) tables whose sizes differ
  by at most one; a table of ``a`` or fewer goes on without playing.
* Grand final (``GF``): the upper final's top ``a`` (seats 1..a) and the lower bracket's last
  ``a`` (seats a+1..2a), at one table of 2a <= k. Its winner is the champion, unless the winner
  came from the lower bracket and ``grand_final_reset`` is on: then the lower finalists beaten in
  GF are out (their second loss) and GF2 seats the upper finalists and the GF winner (everyone
  there has lost once); GF2's winner is the champion.

The exception: a final table crowns one entrant, so upper finalists beaten in GF by another upper
finalist (with a >= 2), or by anyone without a reset, go out after one loss, as the winners'
champion does in a two-seat bracket without a reset.
"""

from __future__ import annotations

import itertools

from .bracket import (
    DOUBLE_KIND,
    FINAL,
    LOSERS,
    WINNERS,
    Bracket,
    BracketMatch,
    Source,
    build_single,
    snake,
    tree_order,
)


def build_double_tables(entrants: int, table_size: int, advance: int, grand_final_reset: bool) -> Bracket:
    bracket = build_single(entrants, table_size, advance, prefix="W")
    matches = bracket.matches
    upper_rounds = max(match.round for match in matches.values())
    for match in matches.values():
        match.section = WINNERS
        match.goes_on = advance
    droppers = {number: _droppers(bracket, number) for number in range(1, upper_rounds + 1)}
    lower = _LowerBracket(bracket)
    pool: list[Source] = []
    for number in range(1, upper_rounds + 1):
        while len(pool) > len(droppers[number]) and len(pool) > advance:
            pool = lower.play(pool)
        pool = pool + droppers[number]
        if len(pool) > advance:
            pool = lower.play(pool)
    while len(pool) > advance:
        pool = lower.play(pool)
    upper_final = f"W{upper_rounds}-1"
    finalists = [Source(match=upper_final, place=place) for place in range(1, advance + 1)]
    lower.add("GF", FINAL, 1, finalists + pool, depth=lower.rounds + 1)
    if grand_final_reset:
        # Filled in by bracket.resolve: the upper finalists and GF's winner, when it came from below.
        seats = finalists + [Source(match="GF", place=1)]
        matches["GF2"] = BracketMatch("GF2", FINAL, 2, seats, depth=lower.rounds + 2)
        matches["GF2"].destinations = dict.fromkeys(range(1, advance + 2))
    return Bracket(DOUBLE_KIND, table_size, advance, entrants, matches, grand_final_reset)


def _droppers(bracket: Bracket, number: int) -> list[Source]:
    """Who drops from upper round ``number``, in the order they are dealt to the lower bracket."""
    order = tree_order(bracket, number)
    most = max(len(bracket.matches[match_id].sources) for match_id in order)
    dropping: list[Source] = []
    for place in range(bracket.advance + 1, most + 1):
        ids = order if (place - bracket.advance) % 2 == 1 else order[::-1]
        dropping.extend(Source(match=m, place=place) for m in ids if len(bracket.matches[m].sources) >= place)
    return dropping[::-1] if number % 2 == 0 else dropping


class _LowerBracket:
    """Adds lower-bracket rounds to ``bracket``, one call of ``play`` per round."""

    def __init__(self, bracket: Bracket) -> None:
        self.bracket = bracket
        self.rounds = 0

    def add(self, match_id: str, section: str, number: int, sources: list[Source], depth: int) -> BracketMatch:
        match = BracketMatch(match_id, section, number, sources, goes_on=self.bracket.advance, depth=depth)
        match.destinations = dict.fromkeys(range(1, len(sources) + 1))
        self.bracket.matches[match_id] = match
        for slot, source in enumerate(sources):
            self.bracket.matches[source.match].destinations[source.place] = (match_id, slot)
        return match

    def play(self, sources: list[Source]) -> list[Source]:
        """One lower round for ``sources`` (best-placed first); returns who goes on, in order."""
        self.rounds += 1
        size = self.bracket.table_size
        tables = -(-len(sources) // size)
        capacities = [len(sources) // tables + (1 if index < len(sources) % tables else 0) for index in range(tables)]
        seated = _apart([[sources[index] for index in dealt] for dealt in snake(len(sources), capacities)])
        ids = []
        for table, at_table in enumerate(seated, start=1):
            match_id = f"L{self.rounds}-{table}"
            self.add(match_id, LOSERS, self.rounds, at_table, depth=self.rounds)
            ids.append((match_id, len(at_table)))
        going_on: list[Source] = []
        for place in range(1, self.bracket.advance + 1):
            ordered = ids if place % 2 == 1 else ids[::-1]
            going_on.extend(Source(match=match_id, place=place) for match_id, seated in ordered if seated >= place)
        return going_on


def _apart(tables: list[list[Source]]) -> list[list[Source]]:
    """Swap entrants between tables while that lowers the number of pairs at one table who come
    from the same match (they have just met); first in table order, so the result is fixed."""

    def met(table: list[Source]) -> int:
        return sum(first.match == second.match for first, second in itertools.combinations(table, 2))

    improved = True
    while improved:
        improved = False
        for first, second in itertools.combinations(tables, 2):
            for i, j in itertools.product(range(len(first)), range(len(second))):
                before = met(first) + met(second)
                first[i], second[j] = second[j], first[i]
                if met(first) + met(second) < before:
                    improved = True
                else:
                    first[i], second[j] = second[j], first[i]
    return tables
