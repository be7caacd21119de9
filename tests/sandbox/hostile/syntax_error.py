def act(observation)
    return observation["legal_actions"][0]
