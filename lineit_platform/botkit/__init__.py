"""Everything between a bot file and the engine that does not depend on isolation.

* ``interface``: the contract a bot is written against, and the adapter that wraps one.
* ``loader``: find a bot (a .py file, a .zip package, or a built-in name) and load it.
* ``limits``: the time and memory limits of a match, with their defaults.
* ``failures``: the classification of everything a bot can do wrong.
* ``referee``: play one game with one player per seat, timing it and applying the failure policy.
* ``schedule``: the games of a match: deck seeds, duplicate deals, seat rotation.
* ``stats``: the results table: mean score, win rate and 95% confidence intervals.

No Django, no Celery. The sandbox package supplies isolated players with the same interface
as the in-process players here.
"""
