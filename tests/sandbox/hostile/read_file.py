def act(observation):
    # the worker's SQLite database, another bot's folder, the worker's secrets: all outside
    with open("__TARGET__", "rb") as handle:
        raise RuntimeError(f"LEAKED {handle.read()[:200]!r}")
