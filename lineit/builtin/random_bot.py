"""Random: plays a uniformly random legal action. The baseline every bot must beat."""

import random


class Bot:
    def __init__(self) -> None:
        self.rng = random.Random()

    def start_game(self, info: dict) -> None:
        # Seeded per game, so a match replays the same way.
        self.rng = random.Random(f"random-bot:{info['game']}:{info['seat']}")

    def act(self, observation: dict) -> str:
        return self.rng.choice(observation["legal_actions"])
