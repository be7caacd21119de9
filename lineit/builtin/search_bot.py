"""Search: determinized Monte Carlo over the heuristic's best few actions, within a time budget.

1. The heuristic's one-step look-ahead (``heuristic_bot.action_values``, imported: the engine
   plays each action on the determinized world and the heuristic values the position) ranks the
   legal actions; those within ``CANDIDATE_MARGIN`` of the best, at most ``MAX_CANDIDATES``,
   are searched. One candidate, or no time: it is played at once.
2. Each sample is one possible world: the observation rebuilt by the engine's ``determinize``
   with the draw pile in a new random order. Every
   candidate is tried in the same world (common random numbers, so differences between
   candidates are not drowned in deal luck), then every seat plays on with a fast rollout
   policy (a cheap version of the heuristic) to the end of the next round, or to the end of the
   game when it is near.
3. The leaf is valued for every seat as score plus the heuristic's estimate of its line and
   hand (``heuristic_bot.position_value``); the sample's result is the bot's value minus the best opponent's. The candidate with
   the best mean wins; the heuristic's own preference breaks near-ties.

Time: ``budget_seconds`` if a subclass sets it, else ``BUDGET_FRACTION`` of the match's
``move_seconds`` capped at ``MAX_BUDGET_SECONDS``. The clock is checked before every rollout,
so a decision overruns its budget by one rollout at most (about 0.1 ms of CPU).
"""

import random
import time

from lineit.builtin.heuristic_bot import Context, action_values, position_value
from lineit.engine import COLOUR_INDEX, PHASE_NAMES, GameState, Line, determinize, rounds_in_game
from lineit.engine.actions import ACTIONS, PLAY, TAKE, TO_HAND, TO_LINE

BUDGET_FRACTION = 0.5
MAX_BUDGET_SECONDS = 0.1
MAX_CANDIDATES = 4
CANDIDATE_MARGIN = 2.5
HORIZON_ROUNDS = 1  # rounds played out beyond the current one

FINAL = PHASE_NAMES.index("final")


# ------------------------------------------------------------------ fast rollout policy
def _card_score(line: Line, card: int, jackpots: list[list[int]]) -> float:
    """How good it is to put ``card`` on ``line`` (it fits)."""
    if card > 100:
        return 1.5 if line.numbers == 0 else (0.5 if line.numbers == 1 else -1.0)
    if line.numbers == 0:
        score = 0.5 + abs(card - 50.5) / 50
    elif line.numbers == 1:
        score = 1.0 - abs(card - line.last) / 40
    else:
        score = 1.0 - (abs(card - line.last) - 1) / 20
    colour = COLOUR_INDEX[card]
    if line.colours[colour] == 2:
        score += len(jackpots[colour])
    return score


def _stuck(line: Line) -> bool:
    if line.numbers < 2:
        return False
    return line.last >= 90 if line.direction > 0 else line.last <= 11


def rollout_action(state: GameState) -> str:
    """A cheap, sensible action for the seat to move, chosen among its legal actions.

    It reads the public parts of the state (lines, hands, market, jackpots) and never builds
    an observation, which would cost more than the rest of the decision.
    """
    seat = state.current_player
    line = state.lines[seat]
    legal = state.legal_actions()
    parsed = [ACTIONS[action] for action in legal]
    jackpots = state.jackpots
    if parsed[0].kind == TAKE:
        best_score, best = -99.0, legal[0]
        for action, (kind, card, where) in zip(legal, parsed):
            if kind != TAKE:
                continue  # bga: take first, then think about playing and closing
            if where == TO_LINE:
                score = _card_score(line, card, jackpots)
            elif where == TO_HAND:
                score = 0.2
            else:
                score = (0.5 if _stuck(line) else -1.0) + (abs(card - 50.5) / 100 if card <= 100 else 0.0)
            if score > best_score:
                best_score, best = score, action
        return best
    final = state.phase == FINAL
    for action, (kind, card, _) in zip(legal, parsed):
        if kind == PLAY:
            if final:
                if card <= 100:
                    return action
            elif _card_score(line, card, jackpots) > 0.4:
                return action
    if "close" in legal and _stuck(line) and line.numbers >= 4:
        return "close"
    return "pass" if "pass" in legal else legal[-1]


def leaf_values(state: GameState) -> list[float]:
    """Every seat's score plus the heuristic's estimate of its line and hand, the market and the
    draw pile counting as the cards to come (this round's take included)."""
    if state.is_over:
        return [float(score) for score in state.scores()]
    n = state.num_players
    pool = sorted(card for card in state.deck[state.position :] + state.market if card <= 100)
    rounds = rounds_in_game(n) - state.round
    context = Context(pool, [len(pile) for pile in state.jackpots], n)
    scores = state.scores()
    return [scores[seat] + position_value(state.lines[seat], state.hands[seat], context, rounds) for seat in range(n)]


class Bot:
    budget_seconds: float | None = None  # a subclass may fix the budget
    max_budget_seconds = MAX_BUDGET_SECONDS
    max_samples: int | None = None  # a subclass may cap the samples (then it is reproducible)

    def __init__(self) -> None:
        self.rng = random.Random(0)
        self.budget = self.max_budget_seconds
        self.samples = 0  # samples drawn in the last decision (for tests and curiosity)

    def start_game(self, info: dict) -> None:
        self.rng = random.Random(f"search-bot:{info['game']}:{info['seat']}")
        if self.budget_seconds is not None:
            self.budget = self.budget_seconds
        else:
            move = float((info.get("limits") or {}).get("move_seconds", 0.5))
            self.budget = min(self.max_budget_seconds, BUDGET_FRACTION * move)

    def act(self, observation: dict) -> str:
        started = time.perf_counter()
        legal = observation["legal_actions"]
        self.samples = 0
        if len(legal) == 1:
            return legal[0]
        world = determinize(observation, self.rng)  # one possible world: the draw pile shuffled
        prior = action_values(observation, world)
        ranked = sorted(legal, key=lambda action: -prior[action])
        best = prior[ranked[0]]
        candidates = [a for a in ranked[:MAX_CANDIDATES] if prior[a] >= best - CANDIDATE_MARGIN]
        if len(candidates) == 1 or observation["phase"] == "final":
            return ranked[0]
        deadline = started + self.budget
        totals = dict.fromkeys(candidates, 0.0)
        counts = dict.fromkeys(candidates, 0)
        seat = observation["seat"]
        stop_round = world.round + HORIZON_ROUNDS + 1
        while time.perf_counter() < deadline and self.samples != self.max_samples:
            for action in candidates:
                if time.perf_counter() >= deadline:
                    break
                state = world.clone()
                state.apply(action)
                while not state.is_over and state.round < stop_round:
                    state.apply(rollout_action(state))
                values = leaf_values(state)
                mine = values[seat]
                totals[action] += mine - max(v for s, v in enumerate(values) if s != seat)
                counts[action] += 1
            self.samples += 1
            world = determinize(observation, self.rng)
        searched = [a for a in candidates if counts[a]]
        if len(searched) < len(candidates) or not searched:
            return ranked[0]
        # Mean result, plus a small share of the heuristic's preference to break near-ties.
        return max(searched, key=lambda a: totals[a] / counts[a] + 0.1 * (prior[a] - best))
