"""Single and double elimination: bracket shape, byes, seeding, and who loses how often."""

from __future__ import annotations

import json
import math
from collections import Counter

from formats_helpers import field, play_out
from hypothesis import given, settings
from hypothesis import strategies as st

from tournaments.formats import DOUBLE, SINGLE, Options, TournamentState, bracket_json, final_standings, first_round
from tournaments.formats.bracket import build_single, tree_order


def losses(state: TournamentState) -> Counter[int]:
    """Times each entrant finished below the advancing places of a played match."""
    lost: Counter[int] = Counter()
    for round_ in state.played_rounds():
        slots = {(p.round, p.table): p.slot for p in round_.pairings}
        for outcome in round_.outcomes or []:
            goes_on = 1 if state.format == DOUBLE else state.options.advance or state.options.table_size // 2
            final = slots[(outcome.round, outcome.table)] in ("GF", "GF2") or outcome.table == 0
            ordered = sorted(outcome.results, key=lambda r: (r.place, state.seeds[r.entrant]))
            for result in ordered[goes_on if not final else 1 :]:
                lost[result.entrant] += 1
    return lost


def test_sixteen_seeds_meet_in_the_standard_order() -> None:
    bracket = build_single(16, 2, 1)
    first = [[source.seed for source in bracket.matches[m].sources] for m in tree_order(bracket, 1)]
    assert first == [[1, 16], [8, 9], [4, 13], [5, 12], [2, 15], [7, 10], [3, 14], [6, 11]]


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 64))
def test_two_seat_bracket_shape_byes_to_top_seeds_never_bye_against_bye(count: int) -> None:
    bracket = build_single(count, 2, 1)
    size = 2 ** math.ceil(math.log2(count))
    first = [m for m in bracket.matches.values() if m.round == 1]
    assert len(first) == size // 2
    assert max(m.round for m in bracket.matches.values()) == math.ceil(math.log2(count))
    lone = sorted(m.sources[0].seed for m in first if len(m.sources) == 1)
    assert lone == list(range(1, size - count + 1))  # byes go to the top seeds
    assert all(len(m.sources) >= 1 for m in first)  # never a bye against a bye
    seeds = sorted(s.seed for m in first for s in m.sources)
    assert seeds == list(range(1, count + 1))
    # Every later match is fed by two earlier ones, each place going to one slot.
    for match in bracket.matches.values():
        if match.round > 1:
            assert len(match.sources) == 2 and all(s.match for s in match.sources)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 64), seed=st.integers(0, 1000))
def test_single_elimination_everyone_but_the_champion_loses_exactly_once(count: int, seed: int) -> None:
    state = play_out(SINGLE, count, Options(table_size=2), seed=seed, results_seed=seed)
    lost = losses(state)
    standings = final_standings(state)
    champion = standings[0].entrant
    assert standings[0].place == 1 and standings[1].place == 2
    assert lost[champion] == 0
    assert all(lost[e.id] == 1 for e in state.entrants if e.id != champion)
    assert len(state.rounds) == math.ceil(math.log2(count))
    json.dumps(bracket_json(state))


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 40), reset=st.booleans(), seed=st.integers(0, 1000))
def test_double_elimination_everyone_but_the_champion_loses_exactly_twice(count: int, reset: bool, seed: int) -> None:
    state = play_out(DOUBLE, count, Options(table_size=2, grand_final_reset=reset), seed=seed, results_seed=seed)
    lost = losses(state)
    champion = final_standings(state)[0].entrant
    bracket = bracket_json(state)
    assert bracket is not None
    (final,) = [m for m in bracket["matches"] if m["id"] == "GF"]
    unbeaten_until_final = final["slots"][0]["entrant"]  # the winners' champion
    for entrant in state.entrants:
        if entrant.id == champion:
            assert lost[entrant.id] <= 1
        elif entrant.id == unbeaten_until_final and not reset:
            assert lost[entrant.id] == 1  # without a reset, one loss in the final ends it
        else:
            assert lost[entrant.id] == 2
    slots = [p.slot for r in state.rounds for p in r.pairings]
    if "GF2" in slots:  # the reset is played only when the losers' champion wins the first final
        assert reset and lost[champion] == 1
    for round_ in state.rounds:  # nobody plays twice in one round
        seated = [e for p in round_.pairings for e in p.entrants]
        assert len(seated) == len(set(seated))


@settings(max_examples=40, deadline=None)
@given(table_size=st.integers(3, 5), count=st.integers(2, 64), seed=st.integers(0, 1000), data=st.data())
def test_tables_the_top_of_each_table_goes_on_until_one_final(
    table_size: int, count: int, seed: int, data: st.DataObject
) -> None:
    count = max(count, table_size)
    advance = data.draw(st.integers(1, table_size // 2))
    state = play_out(SINGLE, count, Options(table_size=table_size, advance=advance), seed=seed, results_seed=seed)
    still_in = {e.id for e in state.entrants}
    seen: Counter[int] = Counter()
    for round_ in state.played_rounds():
        for pairing, _outcome in zip([p for p in round_.pairings if not p.bye], round_.outcomes or []):
            assert 2 <= len(pairing.entrants) <= table_size
            assert set(pairing.entrants) <= still_in  # nobody plays after being knocked out
            seen.update(pairing.entrants)
    standings = final_standings(state)
    assert [row.place for row in standings][:1] == [1]
    assert sum(row.place == 1 for row in standings) == 1
    # Places are shared only by entrants knocked out at the same stage.
    for row in standings[1:]:
        assert row.eliminated_in is not None


def test_byes_give_no_match_and_the_bracket_is_json() -> None:
    state = first_round(SINGLE, field(5), Options(table_size=2), seed=0)
    assert state.pending is not None
    seeds = state.seeds
    played = sorted(sorted(seeds[e] for e in p.entrants) for p in state.pending.pairings)
    # Seeds 1, 2, 3 have byes; 2 v 3 is ready at once and is played alongside 4 v 5.
    assert played == [[2, 3], [4, 5]]
    data = bracket_json(state)
    assert data is not None
    byes = [m for m in data["matches"] if m["status"] == "bye"]
    assert sorted(m["slots"][0]["from"] for m in byes) == ["seed 1", "seed 2", "seed 3"]
    json.dumps(data)
