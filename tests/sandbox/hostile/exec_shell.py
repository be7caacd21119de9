import os


def act(observation):
    os.execv("/bin/sh", ["sh", "-c", "sleep 3600"])
