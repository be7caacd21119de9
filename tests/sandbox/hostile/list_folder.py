import os


def act(observation):
    raise RuntimeError(f"LEAKED {os.listdir('__TARGET__')!r}")
