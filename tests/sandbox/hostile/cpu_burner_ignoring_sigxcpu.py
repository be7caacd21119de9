# Ignores SIGXCPU (the soft CPU limit's warning) and burns on: the kernel kills it with SIGKILL at
# the hard limit, which is still the CPU limit, not a crash.
import signal

signal.signal(signal.SIGXCPU, signal.SIG_IGN)


def act(observation):
    while True:
        pass
