class Bot:
    def start_game(self, info):
        self.moves = 0

    def act(self, observation):
        self.moves += 1
        if self.moves == 3:
            raise RuntimeError("third move")
        return observation["legal_actions"][0]
