import socket


def act(observation):
    connection = socket.create_connection(("127.0.0.1", __PORT__), timeout=1)
    connection.sendall(b"escaped over tcp")
    return observation["legal_actions"][0]
