import os


def act(observation):
    pid = os.fork()
    if pid == 0:
        import time

        time.sleep(3600)  # a child that would outlive the match
    return observation["legal_actions"][0]
