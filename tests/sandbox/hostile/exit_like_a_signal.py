# Exits with the status bubblewrap gives a process killed by a signal (128 + SIGXCPU), hoping to
# be reported as having hit its CPU limit (or crashed) rather than as having exited.
import os

STATUS = __STATUS__


def act(observation):
    os._exit(STATUS)
