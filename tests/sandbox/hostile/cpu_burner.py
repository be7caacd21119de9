import threading


def burn():
    while True:
        pass


def act(observation):
    for _ in range(2):
        threading.Thread(target=burn, daemon=True).start()
    while True:
        pass
