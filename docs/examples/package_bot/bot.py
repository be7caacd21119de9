"""An example bot made of a package: this file, a module (evaluation.py) and a package (tables/)
holding a data file (tables/weights.json), uploaded as one zip with bot.py at its root.

    lineit match docs/examples/package_bot heuristic    # the folder plays as the zip does
    cp -r docs/examples/package_bot mybot && lineit new --zip mybot    # mybot.zip, to upload

docs/bot-interface.md, "Zip packages", says what a zip may hold. Inside the sandbox the bot's
folder is read-only and on sys.path, so its siblings import as usual.
"""

from __future__ import annotations

import random

from evaluation import action_value
from tables import load_weights

from lineit.botkit.types import GameInfo, Observation
from lineit.engine import Line


class Bot:
    def __init__(self) -> None:
        self.weights = load_weights()  # read once, when the bot is loaded (start-up time)
        self.rng = random.Random(0)

    def start_game(self, info: GameInfo) -> None:
        self.rng = random.Random(f"package:{info['game']}:{info['seat']}")

    def act(self, observation: Observation) -> str:
        legal = observation["legal_actions"]
        line = Line.from_cards(observation["players"][observation["seat"]]["line"])
        values = {action: action_value(action, line, observation, self.weights) for action in legal}
        best = max(values.values())
        return self.rng.choice([action for action in legal if values[action] == best])
