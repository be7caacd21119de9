"""Reference bots. Each is a standalone bot file written only against the public bot interface
(docs/bot-interface.md), so any of them can be uploaded, copied or run in the sandbox as is."""
