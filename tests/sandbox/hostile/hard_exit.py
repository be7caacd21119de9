import os


def act(observation):
    os._exit(7)
