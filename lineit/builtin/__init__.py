"""Reference bots. Each is a bot file written against the public bot interface
(docs/bot-interface.md) and the engine, which it simulates with; the search bot also borrows the
heuristic's value model from ``heuristic_bot``. The sandbox provides this package read-only beside
the engine, so every one of them can be uploaded, copied or run in the sandbox as is, and a
bot may import their modules too. ``versions`` names a built-in's version (its file and the
modules it borrows)."""
