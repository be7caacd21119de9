# A bot written before the kit was its own package: it imports the engine by its old name,
# lineit_platform.engine, which the sandbox keeps as an alias of lineit.engine.
from lineit_platform.engine import parse_action
from lineit_platform.engine.state import GameState

import lineit.engine


class Bot:
    def act(self, observation):
        legal = observation["legal_actions"]
        parse_action(legal[0])
        assert GameState is lineit.engine.GameState
        return legal[-1]
