import threading
import time


def spin():
    while True:  # thinks all the time, if it is allowed to run
        pass


class Bot:
    def __init__(self):
        threading.Thread(target=spin, daemon=True).start()

    def act(self, observation):
        threading.Thread(target=time.sleep, args=(3600,), daemon=True).start()
        return observation["legal_actions"][0]
