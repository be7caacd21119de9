import os
import time

READ_FD, WRITE_FD = 3, 4  # where the bot host keeps its pipes (host.py)


def act(observation):
    os.write(WRITE_FD, (100).to_bytes(4, "big") + b"take")  # half a frame, then silence
    time.sleep(3600)
