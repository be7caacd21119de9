import os
import sys
import time


def act(observation):
    os.write(int(sys.argv[2]), (100).to_bytes(4, "big") + b"take")  # half a frame, then silence
    time.sleep(3600)
