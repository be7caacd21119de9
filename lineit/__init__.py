"""Line-it: the kit a bot author installs alone. Pure Python: no Django, Celery or database driver.

* ``engine``: the rules of Line-it (state, observation, replay, determinize);
* ``botkit``: the bot interface, loading a bot, the referee, limits and failures;
* ``sandbox``: one untrusted bot in one isolated process;
* ``stats``: Elo, SPRT and confidence intervals;
* ``formats``: tournament pairings and standings over plain data;
* ``builtin``: the built-in bots, written against the public interface only;
* ``render``: a game position and what an action did, as text (the CLI and the web replay);
* ``cli``: the ``lineit`` command line.

docs/architecture.md draws how the parts, and the Django platform built on them, depend on each
other.
"""

__version__ = "0.2.0"  # the kit's and the platform's version: both pyproject files read it
