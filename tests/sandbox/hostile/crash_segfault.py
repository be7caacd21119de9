import ctypes


def act(observation):
    ctypes.string_at(0)
