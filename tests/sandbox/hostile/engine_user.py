from lineit.engine import determinize, parse_action  # the engine is public


class Bot:
    def act(self, observation):
        legal = observation["legal_actions"]
        parse_action(legal[0])
        assert callable(determinize)
        return legal[-1]
