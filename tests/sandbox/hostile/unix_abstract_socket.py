import socket


def act(observation):
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    client.connect("\0__TARGET__")
    client.sendall(b"escaped over an abstract socket")
    return observation["legal_actions"][0]
