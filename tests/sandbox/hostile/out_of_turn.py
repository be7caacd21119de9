import os
import sys
import threading


def chatter(action):
    payload = b"A" + action.encode()
    os.write(int(sys.argv[2]), len(payload).to_bytes(4, "big") + payload)


def act(observation):
    threading.Thread(target=chatter, args=(observation["legal_actions"][0],)).start()
    return observation["legal_actions"][0]
