import socket


def act(observation):
    # PostgreSQL and Redis listen on path sockets like this one.
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("__TARGET__")
    client.sendall(b"escaped over a unix socket")
    return observation["legal_actions"][0]
