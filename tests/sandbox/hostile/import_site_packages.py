import networkx  # noqa: F401  the worker's site-packages (where the kit's own networkx is) are not in the sandbox


def act(observation):
    return observation["legal_actions"][0]
