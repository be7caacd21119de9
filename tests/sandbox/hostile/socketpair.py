import socket


def act(observation):
    socket.socketpair()
    return observation["legal_actions"][0]
