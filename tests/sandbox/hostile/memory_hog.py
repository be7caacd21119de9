def act(observation):
    hoard = []
    while True:
        hoard.append(bytearray(16 * 1024 * 1024))
