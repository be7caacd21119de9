"""Round robin: everyone meets everyone, seats and byes are shared out evenly."""

from __future__ import annotations

import itertools

from formats_helpers import byes, field, meetings, play_out, seat_counts
from hypothesis import given, settings
from hypothesis import strategies as st

from lineit.formats import ROUND_ROBIN, Options, first_round, planned_rounds
from lineit.formats.roundrobin import berger_rounds


@settings(max_examples=40, deadline=None)
@given(count=st.integers(2, 24), cycles=st.integers(1, 2), seed=st.integers(0, 10**6))
def test_two_seats_every_pair_meets_once_per_cycle_and_seats_alternate(count: int, cycles: int, seed: int) -> None:
    state = play_out(ROUND_ROBIN, count, Options(table_size=2, cycles=cycles), seed=seed)

    met = meetings(state)
    ids = [entrant.id for entrant in state.entrants]
    assert all(met[frozenset(pair)] == cycles for pair in itertools.combinations(ids, 2))
    assert len(state.rounds) == cycles * (count - 1 if count % 2 == 0 else count)
    # Berger tables: first-seat and second-seat starts differ by at most one (none over two cycles).
    for first, second in seat_counts(state).values():
        assert abs(first - second) <= (1 if cycles == 1 else 0)
    # An odd field: everyone sits out exactly once per cycle; an even one: nobody does.
    assert byes(state) == ({entrant: cycles for entrant in ids} if count % 2 else {})


def test_berger_tables_for_six_match_the_published_first_round() -> None:
    first = berger_rounds(6)[0]
    assert sorted(tuple(sorted(table)) for table in first) == [(0, 5), (1, 4), (2, 3)]


@settings(max_examples=25, deadline=None)
@given(table_size=st.integers(3, 5), extra=st.integers(0, 16), seed=st.integers(0, 10**6))
def test_tables_every_pair_meets_everyone_is_seated_and_seats_are_balanced(
    table_size: int, extra: int, seed: int
) -> None:
    count = table_size + extra
    state = play_out(ROUND_ROBIN, count, Options(table_size=table_size), seed=seed)
    ids = [entrant.id for entrant in state.entrants]

    met = meetings(state)
    assert all(met[frozenset(pair)] >= 1 for pair in itertools.combinations(ids, 2))
    for round_ in state.rounds:
        seated = [e for p in round_.pairings for e in p.entrants]
        assert sorted(seated) == sorted(ids)  # everyone once: at a table or on a bye
        assert all(len(p.entrants) == table_size for p in round_.pairings if not p.bye)
        assert sum(p.bye for p in round_.pairings) == count % table_size
    bye_counts = byes(state)
    assert max(bye_counts[e] for e in ids) - min(bye_counts[e] for e in ids) <= 1
    for counts in seat_counts(state).values():
        assert max(counts) - min(counts) <= 1


def test_the_schedule_is_known_before_the_first_match_and_fixed_by_the_seed() -> None:
    one = first_round(ROUND_ROBIN, field(9), Options(table_size=3), seed=5)
    again = first_round(ROUND_ROBIN, field(9), Options(table_size=3), seed=5)
    assert planned_rounds(one) == planned_rounds(again) >= 4  # 8 opponents, 2 per table
    assert one.to_dict() == again.to_dict()
