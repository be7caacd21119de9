import sys


def act(observation):
    sys.stderr.write("x" * 4_000_000)
    return observation["legal_actions"][0]
