import sys


def act(observation):
    sys.exit(3)
