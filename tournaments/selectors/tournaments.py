"""Reading a tournament for the API and the pages: its rounds, standings and bracket.

Nothing here writes. Each reader rebuilds the pairing state from ``Tournament.state`` and joins
each pairing to its platform match (id, status and game ids, for replay links) in two queries:
``tournament_rounds`` lists every table of every round, ``tournament_standings`` the table after
each played round, and ``tournament_bracket`` the bracket (None for formats without one).
"""

from __future__ import annotations

from typing import Any

from lineit import formats
from tournaments.models import Game, Match, Tournament

# --- Reading: rounds, standings after each round, the bracket (for the API and the pages) -------


def _matches_of(tournament: Tournament) -> dict[tuple[int, int], dict[str, Any]]:
    """Each pairing's match: id, status and its games' ids (for replay links), in two queries."""
    found = {
        (row["tournament_round"], row["tournament_table"]): {"id": row["id"], "status": row["status"], "games": []}
        for row in Match.objects.filter(tournament=tournament).values(
            "id", "status", "tournament_round", "tournament_table"
        )
    }
    by_id = {match["id"]: match for match in found.values()}
    for game_id, match_id in (
        Game.objects.filter(match__tournament=tournament).order_by("match_id", "index").values_list("id", "match_id")
    ):
        by_id[match_id]["games"].append(game_id)
    return found


def _labels(state: formats.TournamentState) -> dict[int, str]:
    return {entrant.id: entrant.name for entrant in state.entrants}


def tournament_rounds(tournament: Tournament) -> list[dict[str, Any]]:
    """Every round so far: each table's entrants in seat order, its match and, once played, the
    result (entrants best first, with place, points, mean rank and mean score)."""
    if not tournament.state:
        return []
    state = formats.TournamentState.from_dict(tournament.state)
    labels, matches = _labels(state), _matches_of(tournament)
    rounds = []
    for round_ in state.rounds:
        outcomes = {outcome.table: outcome for outcome in round_.outcomes or []}
        tables = []
        for pairing in round_.pairings:
            outcome = outcomes.get(pairing.table)
            tables.append(
                {
                    "table": pairing.table,
                    "slot": pairing.slot,
                    "bye": pairing.bye,
                    "entrants": [{"version": e, "label": labels[e]} for e in pairing.entrants],
                    "match": matches.get((pairing.round, pairing.table)),
                    "result": None
                    if outcome is None
                    else [result.to_dict() | {"label": labels[result.entrant]} for result in outcome.results],
                }
            )
        rounds.append({"round": round_.number, "played": round_.outcomes is not None, "tables": tables})
    return rounds


def tournament_standings(tournament: Tournament) -> list[dict[str, Any]]:
    """The standings after each played round (the last one is the final table once finished)."""
    if not tournament.state:
        return []
    state = formats.TournamentState.from_dict(tournament.state)
    labels = _labels(state)
    tables = []
    for count, round_ in enumerate(state.played_rounds(), start=1):
        partial = formats.TournamentState(
            format=state.format,
            options=state.options,
            entrants=state.entrants,
            seed=state.seed,
            rounds=state.rounds[:count],
        )
        rows = [row.to_dict() | {"label": labels[row.entrant]} for row in formats.standings(partial)]
        tables.append({"round": round_.number, "rows": rows})
    return tables


def tournament_bracket(tournament: Tournament) -> dict[str, Any] | None:
    """The elimination bracket (``formats.bracket_json``) with each bracket match's platform
    match (id, status, games); None for a format without a bracket, or before the start."""
    if not tournament.state or not tournament.format_spec.has_bracket:
        return None
    state = formats.TournamentState.from_dict(tournament.state)
    bracket = formats.bracket_json(state)
    if bracket is None:
        return None
    slots = {pairing.slot: (pairing.round, pairing.table) for round_ in state.rounds for pairing in round_.pairings}
    matches = _matches_of(tournament)
    for match in bracket["matches"]:
        key = slots.get(match["id"])
        match["round_played"] = None if key is None else key[0]
        match["match"] = None if key is None else matches.get(key)
    return bracket


# --- Reading for the pages: match scores, the cross-table, winners -------------------------------


def tournament_slot_results(tournament: Tournament) -> dict[str, dict[int, dict[str, Any]]]:
    """Each elimination bracket match's result per entrant (place, points, mean rank, games),
    by bracket slot ('W1-1', 'L2-1', 'GF1', ...); no query (the state is on the row)."""
    if not tournament.state:
        return {}
    state = formats.TournamentState.from_dict(tournament.state)
    found: dict[str, dict[int, dict[str, Any]]] = {}
    for round_ in state.rounds:
        outcomes = {outcome.table: outcome for outcome in round_.outcomes or []}
        for pairing in round_.pairings:
            outcome = outcomes.get(pairing.table)
            if pairing.slot and outcome is not None:
                found[pairing.slot] = {result.entrant: result.to_dict() for result in outcome.results}
    return found


def tournament_cross_table(tournament: Tournament) -> dict[str, Any] | None:
    """Who beat whom (formats without a bracket: round robin, Swiss): the entrants in
    final-standings order, and for each (row, column) the pairings they met in, each with the
    row's points, W/D/L (the row's place against the column's at that table) and the platform
    match. None before the first result or for a format with a bracket. Two queries (the matches
    and their games)."""
    if not tournament.state or tournament.format_spec.has_bracket:
        return None
    state = formats.TournamentState.from_dict(tournament.state)
    if not state.played_rounds():
        return None
    labels, matches = _labels(state), _matches_of(tournament)
    order = [row.entrant for row in formats.standings(state)]
    cells: dict[tuple[int, int], list[dict[str, Any]]] = {}
    for round_ in state.rounds:
        outcomes = {outcome.table: outcome for outcome in round_.outcomes or []}
        for pairing in round_.pairings:
            outcome = outcomes.get(pairing.table)
            if outcome is None or pairing.bye:
                continue
            match = matches.get((pairing.round, pairing.table))
            for one in outcome.results:
                for other in outcome.results:
                    if one.entrant == other.entrant:
                        continue
                    mark = "W" if one.place < other.place else "L" if one.place > other.place else "D"
                    cells.setdefault((one.entrant, other.entrant), []).append(
                        {"round": pairing.round, "mark": mark, "points": one.points, "match": match}
                    )
    rows = [
        {
            "entrant": entrant,
            "label": labels[entrant],
            "cells": [
                {"entrant": other, "self": other == entrant, "results": cells.get((entrant, other), [])}
                for other in order
            ],
        }
        for entrant in order
    ]
    return {"entrants": [{"entrant": e, "label": labels[e]} for e in order], "rows": rows}


def tournament_winners(tournament_ids: list[int]) -> dict[int, dict[str, Any]]:
    """The winner (first of the final standings: the champion in elimination) of each finished
    tournament among ``tournament_ids``: its entrant (version) id and label. One query."""
    winners: dict[int, dict[str, Any]] = {}
    rows = Tournament.objects.filter(pk__in=tournament_ids, status=Tournament.Status.FINISHED).values_list(
        "pk", "state"
    )
    for pk, data in rows:
        if not data:
            continue
        state = formats.TournamentState.from_dict(data)
        table = formats.standings(state)
        if table:
            winners[pk] = {"entrant": table[0].entrant, "label": _labels(state)[table[0].entrant]}
    return winners
