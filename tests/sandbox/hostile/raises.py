def act(observation):
    raise ValueError("the bot gave up")
