import sys


def act(observation):
    sys.stdout.write("take 1 line")  # no newline, on stdout: it is only a log line here
    print("stdout is not the protocol", end="", file=sys.stderr)
    return observation["legal_actions"][0]
