import threading
import time


def act(observation):
    threads = []
    while True:
        thread = threading.Thread(target=time.sleep, args=(3600,), daemon=True)
        thread.start()
        threads.append(thread)
