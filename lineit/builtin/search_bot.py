"""Search: determinized Monte Carlo over the heuristic's best few actions, within a time budget.

1. A one-step look-ahead on the heuristic's value (the same model as heuristic_bot) ranks the
   legal actions; those within ``CANDIDATE_MARGIN`` of the best, at most ``MAX_CANDIDATES``,
   are searched. One candidate, or no time: it is played at once.
2. Each sample is one possible world: the draw pile reshuffled (``determinize``). Every
   candidate is tried in the same world (common random numbers, so differences between
   candidates are not drowned in deal luck), then every seat plays on with a fast rollout
   policy (a cheap version of the heuristic) to the end of the next round, or to the end of the
   game when it is near.
3. The leaf is valued for every seat as score plus the heuristic's estimate of its line and
   hand; the sample's result is the bot's value minus the best opponent's. The candidate with
   the best mean wins; the heuristic's own preference breaks near-ties.

Time: ``budget_seconds`` if a subclass sets it, else ``BUDGET_FRACTION`` of the match's
``move_seconds`` capped at ``MAX_BUDGET_SECONDS``. The clock is checked before every rollout,
so a decision overruns its budget by one rollout at most (about 0.1 ms of CPU).
"""

import random
import time
from bisect import bisect_left, bisect_right
from math import exp

from lineit.engine import COLOUR_INDEX, PHASE_NAMES, Line, bet_value, determinize

BUDGET_FRACTION = 0.5
MAX_BUDGET_SECONDS = 0.1
MAX_CANDIDATES = 4
CANDIDATE_MARGIN = 2.5
HORIZON_ROUNDS = 1  # rounds played out beyond the current one

# The heuristic's model (see heuristic_bot.py; copied, as each bot file stands alone).
HAND_FIT_VALUE = 0.7
HAND_LOOSE_VALUE = 0.1
FULL_HAND_PENALTY = 0.4
JACKPOT_SHARE = 0.6
JACKPOT_GROWTH = 0.45
COLOUR_CHOICE = 1.4
BET_IN_HAND_VALUE = 0.2

FINAL = PHASE_NAMES.index("final")


class Context:
    def __init__(self, pool: list[int], jackpots: list[int], num_players: int, rounds: int) -> None:
        self.pool = pool  # sorted unseen number cards
        self.jackpots = jackpots
        self.market_size = num_players + 2
        self.visible = self.market_size - (num_players - 1) / 2
        self.rounds = rounds

    def room(self, line: Line) -> int:
        pool = self.pool
        if line.numbers == 0:
            return len(pool)
        if line.numbers == 1:
            below = bisect_left(pool, line.last)
            return max(below, len(pool) - below)
        if line.direction > 0:
            return len(pool) - bisect_right(pool, line.last)
        return bisect_left(pool, line.last)

    def growth(self, line: Line, rounds: int) -> float:
        room = float(self.room(line))
        pool = float(len(self.pool))
        gained = 0.0
        for _ in range(rounds):
            if pool < 1 or room < 0.5:
                break
            share = min(1.0, room / pool)
            chance = 1 - (1 - share) ** self.visible
            gained += chance
            room -= chance * (1 + room / (self.visible * share + 1)) + (self.market_size - 1) * share
            pool -= self.market_size
        return gained


def jackpot_chance(needed: int, mean: float) -> float:
    term = exp(-mean)
    below = term
    for k in range(1, needed):
        term *= mean / k
        below += term
    return 1 - below


def position_value(line: Line, hand: list[int], context: Context, rounds: int) -> float:
    growth = context.growth(line, rounds)
    if rounds == 0:
        growth = min(2, sum(1 for card in hand if card <= 100 and line.fits(card)))
    value = max(0.0, line.numbers + growth - 3)
    if line.bet:
        bet = bet_value(line.bet)
        margin = line.after_bet + growth - bet
        if rounds == 0:
            chance = 1.0 if margin >= 0 else 0.0
        else:
            chance = 1 / (1 + exp(-1.6 * (margin + 0.3)))
        value += bet * (2 * chance - 1)
    for colour in range(4):
        count = line.colours[colour]
        if count < 3:
            chance = jackpot_chance(3 - count, growth * 0.25 * COLOUR_CHOICE)
            value += JACKPOT_SHARE * chance * (context.jackpots[colour] + JACKPOT_GROWTH * rounds / 2)
    if rounds:
        loose = 0
        for card in hand:
            if card > 100:
                value += BET_IN_HAND_VALUE if rounds > 3 else 0.0
            elif line.fits(card):
                value += HAND_FIT_VALUE
            else:
                value += HAND_LOOSE_VALUE
                loose += 1
        if len(hand) == 2 and loose == 2:
            value -= FULL_HAND_PENALTY
    return value


def heuristic_values(observation: dict) -> dict[str, float]:
    """The heuristic's one-step value of every legal action for the observing seat."""
    me = observation["players"][observation["seat"]]
    n = observation["num_players"]
    turn = observation.get("turn") or {}
    final = observation["phase"] == "final"
    taken = observation["phase"] in ("play", "close") or bool(turn.get("took"))
    pool = sorted(card for card in observation["unseen"] if card <= 100)
    jackpots = [len(pile) for pile in observation["jackpots"]]
    after_take = 0 if final else observation["draw_count"] // (n + 2)
    before_take = after_take + (0 if taken or final else 1)
    context = Context(pool, jackpots, n, after_take)
    mine = Line.from_cards(me["line"])  # the engine's line: its rules, a copy per action
    values = {}
    for action in observation["legal_actions"]:
        line = mine.copy()
        hand = list(me["hand"])
        gained = 0.0
        rounds = before_take
        words = action.split()
        if words[0] == "take":
            card, where = int(words[1]), words[2]
            rounds = after_take
            if where == "hand":
                hand.append(card)
            else:
                if where == "forced-close":
                    gained += line.close_points()
                    line = Line()
                colour = line.add(card)
                if colour >= 0:
                    gained += jackpots[colour]
        elif words[0] == "play":
            card = int(words[1])
            hand.remove(card)
            colour = line.add(card)
            if colour >= 0:
                gained += jackpots[colour]
            if final and card > 100:
                gained -= 100
        elif words[0] == "close":
            gained += line.close_points()
            line = Line()
        values[action] = gained + position_value(line, hand, context, rounds)
    return values


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


def _parse(action: str) -> tuple[str, int, str]:
    words = action.split()
    return words[0], int(words[1]) if len(words) > 1 else 0, words[2] if len(words) > 2 else ""


PARSED: "dict[str, tuple[str, int, str]]" = {}  # action string -> (kind, card, destination), filled on first sight


def rollout_action(state) -> str:
    """A cheap, sensible action for the seat to move, chosen among its legal actions.

    It reads the public parts of the state (lines, hands, market, jackpots) and never builds
    an observation, which would cost more than the rest of the decision.
    """
    seat = state.current_player
    line = state.lines[seat]
    legal = state.legal_actions()
    parsed = [PARSED.get(action) or PARSED.setdefault(action, _parse(action)) for action in legal]
    jackpots = state.jackpots
    if parsed[0][0] == "take":
        best_score, best = -99.0, legal[0]
        for action, (kind, card, where) in zip(legal, parsed):
            if kind != "take":
                continue  # bga: take first, then think about playing and closing
            if where == "line":
                score = _card_score(line, card, jackpots)
            elif where == "hand":
                score = 0.2
            else:
                score = (0.5 if _stuck(line) else -1.0) + (abs(card - 50.5) / 100 if card <= 100 else 0.0)
            if score > best_score:
                best_score, best = score, action
        return best
    final = state.phase == FINAL
    for action, (kind, card, _) in zip(legal, parsed):
        if kind == "play":
            if final:
                if card <= 100:
                    return action
            elif _card_score(line, card, jackpots) > 0.4:
                return action
    if "close" in legal and _stuck(line) and line.numbers >= 4:
        return "close"
    return "pass" if "pass" in legal else legal[-1]


def leaf_values(state) -> list[float]:
    """Every seat's score plus the heuristic's estimate of its line and hand."""
    if state.is_over:
        return [float(score) for score in state.scores()]
    n = state.num_players
    tail = state.deck[state.position :]
    pool = sorted(card for card in tail + state.market if card <= 100)
    rounds = len(tail) // (n + 2) + 1
    context = Context(pool, [len(pile) for pile in state.jackpots], n, rounds)
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
        prior = heuristic_values(observation)
        ranked = sorted(legal, key=lambda action: -prior[action])
        best = prior[ranked[0]]
        candidates = [a for a in ranked[:MAX_CANDIDATES] if prior[a] >= best - CANDIDATE_MARGIN]
        if len(candidates) == 1 or observation["phase"] == "final":
            return ranked[0]
        deadline = started + self.budget
        totals = dict.fromkeys(candidates, 0.0)
        counts = dict.fromkeys(candidates, 0)
        seat = observation["seat"]
        world = determinize(observation, self.rng)
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
            world = self._reshuffled(world, observation)
        searched = [a for a in candidates if counts[a]]
        if len(searched) < len(candidates) or not searched:
            return ranked[0]
        # Mean result, plus a small share of the heuristic's preference to break near-ties.
        return max(searched, key=lambda a: totals[a] / counts[a] + 0.1 * (prior[a] - best))

    def _reshuffled(self, world, observation: dict):
        """Another world: the same public position, the draw pile in another order.

        Cheaper than a new ``determinize``: the clone's draw pile (the cards after
        ``position`` in ``deck``) is shuffled again. Should the engine's state ever store its
        draw pile differently, a fresh determinization is drawn instead.
        """
        if not (hasattr(world, "deck") and hasattr(world, "position")):
            return determinize(observation, self.rng)
        world = world.clone()
        tail = world.deck[world.position :]
        self.rng.shuffle(tail)
        world.deck = world.deck[: world.position] + tail
        return world
