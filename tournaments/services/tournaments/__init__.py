"""Tournaments on the platform: create, sign up, start, advance round by round, finish, cancel.

The pairing rules live in ``lineit.formats`` (pure); these modules keep a tournament's whole
state in ``Tournament.state`` and turn each pending pairing into a match (``Match.tournament``,
``tournament_round``, ``tournament_table``; unique, so a round is never created twice).

Every step runs under a lock on the tournament's row (``Tournament.objects.locked``) and checks
the status first, so a task that runs twice, or the periodic tick racing a task, does nothing the
second time. A tournament advances when every match of its round has ended: finished (decided by
its games), or failed or cancelled by the platform, which counts as a tie between everyone at the
table (they share the place and split the points; in elimination the better seed goes on, the
formats' tie rule). A bot that fails every game still ends its match, last.

The modules, by sub-domain: ``creation`` (settings, creating, signing up and withdrawing),
``running`` (start, rounds, advance, cancel and the periodic tick) and ``recurring`` (recurring
tournament templates). What the API and the pages read of a tournament (rounds, standings,
bracket) is in ``tournaments/selectors/tournaments.py``.
"""
