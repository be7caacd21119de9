import socket


def act(observation):
    sender = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sender.sendto(b"escaped over udp", ("127.0.0.1", __PORT__))
    return observation["legal_actions"][0]
