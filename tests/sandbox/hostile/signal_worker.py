import os
import signal


def act(observation):
    os.kill(__PORT__, signal.SIGTERM)  # the worker's real pid, as a bot might guess it
    return observation["legal_actions"][0]
