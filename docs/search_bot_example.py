"""A search bot written with the engine: determinize, clone, apply, score.

For each legal action, in one possible world after another (the hidden order of the draw pile
guessed by ``determinize``), play the action on a copy of the world, finish the game with random
moves and note our final score minus the best opponent's. Every action is tried in the same
worlds, so luck cancels out between them. When the time is up, play the best mean.

    lineit match docs/search_bot_example.py random --games 20
"""

import random
import time

from lineit.engine import determinize


class Bot:
    def start_game(self, info):
        self.seat = info["seat"]
        self.rng = random.Random(f"{info['game']}:{info['seat']}")  # reproducible games
        self.budget = 0.5 * info["limits"]["move_seconds"]  # think for half the free allowance

    def act(self, observation):
        legal = observation["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        deadline = time.perf_counter() + self.budget
        totals = dict.fromkeys(legal, 0.0)
        while True:
            world = determinize(observation, self.rng)  # the observation as a full GameState
            for action in legal:
                state = world.clone()  # a copy: the world stays as it was for the next action
                state.apply(action)
                while not state.is_over:  # a random playout to the end of the game
                    state.apply(self.rng.choice(state.legal_actions()))
                scores = state.scores()
                mine = scores.pop(self.seat)
                totals[action] += mine - max(scores)
            if time.perf_counter() >= deadline:  # after whole worlds only: every action is tried alike
                return max(legal, key=totals.__getitem__)
