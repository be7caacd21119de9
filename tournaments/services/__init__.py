"""Writes that span models, by domain; keyword-only, typed, atomic, named ``<entity>_<action>``.

* matches: ``matches/`` (the match pipeline: ``states``, ``chunks``, ``execution``, ``results``,
  ``after``, ``sweeper``), ``match_requests`` (unranked matches a user asks for, within the quota),
  ``ladder`` (the rated matches of the ladder);
* ratings: ``ratings`` (the one rating writer, and the recomputation from the events);
* tournaments: ``tournaments/`` (``creation``, ``running``, ``recurring``).

The arrows run one way: tournaments -> matches -> ratings are never imported upwards. The one call
up, a match ended so its tournament may advance, is ``matches.after.match_ended``: it only sends the
tournament's advance task, by name. Services send tasks by name (lineit_platform/queueing.py) and
import no task; tasks (tournaments/tasks.py) call services. Import each name from its module.
"""
