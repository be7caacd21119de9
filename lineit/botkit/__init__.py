"""Everything between a bot file and the engine that does not depend on isolation.

* ``interface``: the contract a bot is written against, and loading one (the sandbox's host
  imports it before every bot).
* ``types``: what a bot is given (the observation, start_game's info, end_game's result) as
  documented TypedDicts, for a bot's type checker; importable in the sandbox too.
* ``sources``: where a bot comes from: a built-in name, a .py file, a .zip or a folder.
* ``players``: the Player interface, and the in-process player for trusted bots.
* ``limits``: the time and memory limits of a match, with their defaults, and a bot's clock.
* ``failures``: the classification of everything a bot can do wrong.
* ``referee``: play the games of a match with one player per entrant, timing it and applying
  the failure policy.
* ``schedule``: the games of a match: deck seeds, duplicate deals, seat rotation, the most
  decisions and the longest time a match can take.
* ``summary``: the results table: mean score, win rate and 95% confidence intervals.
* ``untrusted``: a bot's text made safe to show.
* ``scratch``: temporary folders named after their owner, and the sweep of stale ones.

No Django, no Celery. The sandbox package supplies isolated players with the same interface
as the in-process players here.
"""
