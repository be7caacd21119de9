def play(observation):
    return observation["legal_actions"][0]
