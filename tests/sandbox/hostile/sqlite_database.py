import sqlite3


def act(observation):
    database = sqlite3.connect("file:__TARGET__?mode=ro", uri=True)
    rows = database.execute("select secret from secrets").fetchall()
    raise RuntimeError(f"LEAKED {rows!r}")
