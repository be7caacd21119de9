import os


def act(observation):
    for folder in (os.getcwd(), "/tmp", "/", "/dev", "__TARGET__"):
        with open(os.path.join(folder, "escaped.txt"), "w") as handle:
            handle.write("escaped")
    return observation["legal_actions"][0]
