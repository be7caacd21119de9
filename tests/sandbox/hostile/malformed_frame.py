import os
import sys


def act(observation):
    os.write(int(sys.argv[2]), (7).to_bytes(4, "big") + b"\xff\xfegarb")
    return observation["legal_actions"][0]
