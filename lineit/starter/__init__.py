"""The files ``lineit new NAME`` writes into the new bot's folder: ``bot.py``, ``test_bot.py`` and
``README.md`` (read with importlib.resources, so they come with an installed kit).

They are the bot author's files, not the kit's: nothing in the kit imports them. ``README.md``
names the bot's folder as ``{{name}}``, which ``lineit new`` replaces.
"""

FILES = ("bot.py", "test_bot.py", "README.md")
NAME_PLACEHOLDER = "{{name}}"
