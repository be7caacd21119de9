import os
import sys


def act(observation):
    os.close(int(sys.argv[1]))
    os.close(int(sys.argv[2]))
    return observation["legal_actions"][0]
