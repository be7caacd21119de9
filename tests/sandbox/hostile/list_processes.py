import os


def act(observation):
    raise RuntimeError(f"LEAKED {sorted(os.listdir('/proc'))!r}")
