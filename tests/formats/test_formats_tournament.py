"""A tournament's functions (lineit/formats/tournament.py): deciding a match, feeding results back,
JSON state, bad input."""

from __future__ import annotations

import itertools

import pytest
from formats_helpers import field, play_out

from lineit.formats import (
    ROUND_ROBIN,
    SWISS,
    Entrant,
    FormatError,
    GameResult,
    Options,
    Pairing,
    TournamentState,
    decide_match,
    first_round,
    format_names,
    next_round,
    seed_order,
    standings,
)


def test_a_match_is_decided_by_mean_rank_then_mean_score_and_ties_share() -> None:
    pairing = Pairing(round=1, table=1, entrants=(1, 2, 3))
    games = [
        GameResult(entrants=(1, 2, 3), ranks=(1, 2, 3), scores=(30, 20, 10)),
        GameResult(entrants=(2, 3, 1), ranks=(1, 2, 3), scores=(25, 15, 5)),
    ]
    outcome = decide_match(pairing, games)
    # Mean ranks: 1 has (1, 3) = 2.0, 2 has (2, 1) = 1.5, 3 has (3, 2) = 2.5.
    assert [(r.entrant, r.place) for r in outcome.results] == [(2, 1), (1, 2), (3, 3)]
    assert [r.points for r in outcome.results] == [1.0, 0.5, 0.0]
    assert outcome.result_of(1).mean_score == pytest.approx(17.5)

    level = [
        GameResult(entrants=(1, 2), ranks=(1, 2), scores=(10, 5)),
        GameResult(entrants=(2, 1), ranks=(1, 2), scores=(10, 5)),
    ]
    tied = decide_match(Pairing(round=1, table=1, entrants=(1, 2)), level)
    assert [r.place for r in tied.results] == [1, 1] and [r.points for r in tied.results] == [0.5, 0.5]


def test_equal_ranks_are_decided_by_score() -> None:
    games = [
        GameResult(entrants=(1, 2), ranks=(1, 2), scores=(10, 9)),
        GameResult(entrants=(2, 1), ranks=(1, 2), scores=(30, 2)),
    ]
    outcome = decide_match(Pairing(round=1, table=1, entrants=(1, 2)), games)
    assert [r.entrant for r in outcome.results] == [2, 1] and outcome.results[1].place == 2


def test_seeds_follow_ratings_and_the_draw_breaks_equal_ratings() -> None:
    entrants = [Entrant(1, None), Entrant(2, 1500), Entrant(3, 1700), Entrant(4, 1500)]
    order = [e.id for e in seed_order(entrants, seed=0)]
    assert order[0] == 3 and order[-1] == 1 and set(order[1:3]) == {2, 4}
    draws = {tuple(e.id for e in seed_order(entrants, seed=s))[1:3] for s in range(20)}
    assert draws == {(2, 4), (4, 2)}  # the seed, not the list order, decides


@pytest.mark.parametrize("format", format_names())
def test_the_state_survives_json_and_replays_to_the_same_tournament(format: str) -> None:
    state = play_out(format, 7, Options(table_size=2), seed=3, results_seed=4)
    again = TournamentState.from_dict(state.to_dict())
    assert again.to_dict() == state.to_dict()
    assert standings(again) == standings(state)


def test_results_must_answer_the_pending_round() -> None:
    state = first_round(ROUND_ROBIN, field(4), Options(), seed=0)
    with pytest.raises(FormatError, match="missing"):
        next_round(state, [])
    assert state.pending is not None and state.pending.outcomes is None  # nothing changed


@pytest.mark.parametrize(
    ("format", "count", "options", "message"),
    [
        ("ladder", 4, Options(), "unknown format"),
        (SWISS, 1, Options(), "needs 2 to"),
        (SWISS, 4, Options(table_size=6), "2 to 5 seats"),
        (SWISS, 3, Options(table_size=4), "needs 4 to"),
        ("single", 9, Options(table_size=3, advance=2), "1 to 1 of each table"),
        ("double", 9, Options(table_size=3, advance=2), "1 to 1 of each table"),
        ("double", 9, Options(table_size=4, advance=3), "1 to 2 of each table"),
    ],
)
def test_bad_options_are_refused(format: str, count: int, options: Options, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        first_round(format, field(count), options)


def test_swiss_standings_break_ties_by_buchholz() -> None:
    state = play_out(SWISS, 8, Options(rounds=3), seed=2, results_seed=2)
    rows = standings(state)
    for better, worse in itertools.pairwise(rows):
        assert (better.points, better.buchholz) >= (worse.points, worse.buchholz) or better.points > worse.points
    assert [row.place for row in rows] == list(range(1, 9))
