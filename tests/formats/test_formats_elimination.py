"""Single and double elimination: bracket shape, byes, seeding, and who loses how often."""

from __future__ import annotations

import json
import math
from collections import Counter

from formats_helpers import field, play_out
from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.formats import (
    DOUBLE,
    SINGLE,
    Options,
    TournamentState,
    bracket_json,
    bracket_state,
    final_standings,
    first_round,
    is_finished,
    next_round,
    outcome_by_order,
)
from lineit.formats.bracket import FINAL, LOSERS, WINNERS, build_single, tree_order
from lineit.formats.double_tables import build_double_tables


def losses(state: TournamentState) -> Counter[int]:
    """Times each entrant finished below the places that go on in a played match."""
    return Counter(entrant for entrant, events in matches_of(state).items() for _, lost in events if lost)


def matches_of(state: TournamentState) -> dict[int, list[tuple[str, bool]]]:
    """Each entrant's played matches in order: (bracket slot, finished below the places going on)."""
    bracket = bracket_state(state).bracket
    seeds = state.seeds
    history: dict[int, list[tuple[str, bool]]] = {entrant.id: [] for entrant in state.entrants}
    for round_ in state.played_rounds():
        slots = {(p.round, p.table): p.slot for p in round_.pairings}
        for outcome in round_.outcomes or []:
            slot = slots[(outcome.round, outcome.table)] or ""
            match = bracket.matches[slot]
            goes_on = 1 if match.section == FINAL else match.goes_on
            ordered = sorted(outcome.results, key=lambda r: (r.place, seeds[r.entrant]))
            for place, result in enumerate(ordered, start=1):
                history[result.entrant].append((slot, place > goes_on))
    return history


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


@settings(max_examples=100, deadline=None)
@given(
    table_size=st.integers(3, 5),
    count=st.integers(3, 64),
    reset=st.booleans(),
    seed=st.integers(0, 1000),
    data=st.data(),
)
def test_tables_double_elimination_out_at_the_second_loss_and_never_the_champion(
    table_size: int, count: int, reset: bool, seed: int, data: st.DataObject
) -> None:
    count = max(count, table_size)
    advance = data.draw(st.integers(1, table_size // 2), label="advance")
    options = Options(table_size=table_size, advance=advance, grand_final_reset=reset)
    state = play_out(DOUBLE, count, options, seed=seed, results_seed=seed)
    filled = bracket_state(state)
    champion = filled.champion
    assert champion is not None
    grand_final = filled.matches["GF"]
    upper_finalists = grand_final.entrants[:advance]
    reset_played = "GF2" in filled.matches and filled.matches["GF2"].status == "played"
    out_in = {row.entrant: row.eliminated_in for row in final_standings(state)}

    for entrant, played in matches_of(state).items():
        lost_at = [index for index, (_, lost) in enumerate(played) if lost]
        slots = [slot for slot, _ in played]
        assert len(lost_at) <= 2
        # Unbeaten entrants play only upper-bracket matches (and the grand final).
        first_loss = lost_at[0] if lost_at else len(played)
        assert all(slot.startswith("W") or slot == "GF" for slot in slots[: first_loss + 1])
        # After one loss: the lower bracket or the finals, never the upper bracket again.
        assert not any(slot.startswith("W") for slot in slots[first_loss + 1 :])
        if entrant == champion:
            assert len(lost_at) <= 1 and not played[-1][1]
            assert out_in[entrant] is None
            continue
        # Everyone else is out right after a loss: the second, or one in a grand final that
        # crowns another upper finalist (no reset due).
        assert lost_at and lost_at[-1] == len(played) - 1
        assert out_in[entrant] == slots[-1]
        if len(lost_at) == 1:
            assert slots[-1] == "GF" and entrant in upper_finalists and not reset_played
    if reset_played:  # only when the grand final's winner came from the lower bracket
        assert reset and filled.matches["GF"].order[0] not in upper_finalists
    for round_ in state.rounds:  # nobody plays twice in one round; tables never overfull
        seated = [e for p in round_.pairings for e in p.entrants]
        assert len(seated) == len(set(seated))
        assert all(2 <= len(p.entrants) <= table_size for p in round_.pairings)


@settings(max_examples=60, deadline=None)
@given(table_size=st.integers(3, 5), count=st.integers(3, 64), reset=st.booleans(), data=st.data())
def test_tables_double_elimination_bracket_shape(table_size: int, count: int, reset: bool, data: st.DataObject) -> None:
    count = max(count, table_size)
    advance = data.draw(st.integers(1, table_size // 2), label="advance")
    bracket = build_double_tables(count, table_size, advance, reset)
    upper = build_single(count, table_size, advance)
    matches = bracket.matches
    # The upper bracket is the single-elimination bracket.
    assert [m for m in matches if m.startswith("W")] == list(upper.matches)
    assert all(matches[m].sources == upper.matches[m].sources for m in upper.matches)
    fed: Counter[tuple[str, int]] = Counter()
    seen: set[str] = set()
    for match in matches.values():
        if match.id != "GF2":
            for slot, source in enumerate(match.sources):
                if source.match:
                    assert source.match in seen  # fed by matches listed (so resolved) before
                    assert matches[source.match].destinations[source.place] == (match.id, slot)
                    fed[(source.match, source.place)] += 1
        seen.add(match.id)
        assert 1 <= len(match.sources) <= table_size
        for place, destination in match.destinations.items():
            if match.section == WINNERS and place <= advance:
                assert destination is not None and destination[0][0] in "WG"  # on up, or to the final
            elif match.section == WINNERS:  # drops (straight to the final when 2a or fewer play)
                assert destination is not None
                assert matches[destination[0]].section == LOSERS or (destination[0] == "GF" and count <= 2 * advance)
            elif match.section == LOSERS and place <= advance:
                assert destination is not None and destination[0][0] in "LG"
            else:
                assert destination is None  # a second loss: out
    assert max(fed.values()) == 1  # every place feeds one slot at most
    grand_final = matches["GF"].sources
    final_round = max(m.round for m in upper.matches.values())
    assert len(grand_final) == 2 * advance
    assert all(s.match == f"W{final_round}-1" and s.place == p for p, s in enumerate(grand_final[:advance], 1))
    assert all(not s.match.startswith("W") or count <= 2 * advance for s in grand_final[advance:])
    assert ("GF2" in matches) == reset
    lower = [m for m in matches.values() if m.section == LOSERS]
    for ids in bracket.round_ids(LOSERS):  # as few tables as seat everyone, sizes within one
        sizes = [len(matches[match_id].sources) for match_id in ids]
        assert len(sizes) == math.ceil(sum(sizes) / table_size) and max(sizes) - min(sizes) <= 1
        assert sum(size - advance for size in sizes if size > advance) >= 1  # someone goes out
    # The lower bracket takes everyone dropping: all upper places below the top ``advance``.
    dropping = sum(max(0, len(m.sources) - advance) for m in upper.matches.values())
    entering = sum(1 for m in lower for s in m.sources if s.match.startswith("W"))
    entering += sum(1 for s in grand_final[advance:] if s.match.startswith("W"))
    assert entering == dropping


def test_tables_double_elimination_nine_at_tables_of_three() -> None:
    bracket = build_double_tables(9, 3, 1, True)

    def sources(match_id: str) -> list[str]:
        return [source.describe() for source in bracket.matches[match_id].sources]

    assert sources("W1-1") == ["seed 1", "seed 6", "seed 7"]
    assert sources("W2-1") == ["W1-1 #1", "W1-2 #1", "W1-3 #1"]
    # The six beaten in round one meet in two tables, nobody with someone from its own table.
    first = [sources("L1-1"), sources("L1-2")]
    assert sorted(s for table in first for s in table) == sorted(f"W1-{t} #{p}" for t in (1, 2, 3) for p in (2, 3))
    assert all(len({s.split()[0] for s in table}) == 3 for table in first)
    # The two beaten in the upper final each meet one lower survivor; then the lower final.
    assert sources("L2-1") == ["L1-1 #1", "W2-1 #2"] and sources("L2-2") == ["L1-2 #1", "W2-1 #3"]
    assert sources("L3-1") == ["L2-1 #1", "L2-2 #1"]
    assert sources("GF") == ["W2-1 #1", "L3-1 #1"] and sources("GF2") == ["W2-1 #1", "GF #1"]


def test_tables_double_elimination_is_fixed_by_the_seed_and_the_results() -> None:
    options = Options(table_size=4, advance=2)
    one = play_out(DOUBLE, 21, options, seed=3, results_seed=8)
    again = play_out(DOUBLE, 21, options, seed=3, results_seed=8)
    assert one.to_dict() == again.to_dict()
    assert TournamentState.from_dict(one.to_dict()).to_dict() == one.to_dict()
    assert json.dumps(bracket_json(one))
    other = play_out(DOUBLE, 21, options, seed=4, results_seed=8)
    assert [e.id for e in other.entrants] != [e.id for e in one.entrants]  # equal ratings: a new draw


def test_a_reset_at_tables_seats_the_upper_finalists_and_the_winner_from_below() -> None:
    # Given 5 entrants at tables of 5, two going on: one upper table, the final.
    state = first_round(DOUBLE, field(5), Options(table_size=5, advance=2), seed=0)
    seeds = state.seeds
    by_seed = {number: entrant for entrant, number in seeds.items()}

    def play(order: list[int]) -> TournamentState:
        assert state.pending is not None
        (pairing,) = state.pending.pairings
        assert sorted(seeds[e] for e in pairing.entrants) == sorted(order)
        return next_round(state, [outcome_by_order(pairing, [by_seed[s] for s in order])])

    state = play([1, 2, 3, 4, 5])  # 1 and 2 go to the grand final, 3, 4 and 5 drop
    state = play([5, 4, 3])  # 3 is out after its second loss
    before_final = state
    state = play([5, 1, 4, 2])  # the grand final: 5 came from below and won, 4 is out
    state = play([2, 5, 1])  # the reset: 2 wins
    assert is_finished(state)
    rows = {seeds[row.entrant]: (row.place, row.eliminated_in) for row in final_standings(state)}
    assert rows == {2: (1, None), 5: (2, "GF2"), 1: (3, "GF2"), 4: (4, "GF"), 3: (5, "L1-1")}

    # When an upper finalist wins the grand final, no reset: the other upper finalist is out
    # after its one loss (a final table crowns one).
    state = before_final
    state = play([2, 5, 1, 4])
    assert is_finished(state)
    rows = {seeds[row.entrant]: (row.place, row.eliminated_in) for row in final_standings(state)}
    assert rows == {2: (1, None), 5: (2, "GF"), 1: (3, "GF"), 4: (4, "GF"), 3: (5, "L1-1")}


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
