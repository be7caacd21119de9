"""The match pipeline: a match from scheduled to recorded, one module per job.

Read in this order:

* ``states``: the Match row's state machine: the queue of each origin (ROUTES), the checks before a
  match is scheduled, ``match_schedule``, ``match_claim``, ``match_release``, ``match_fail``,
  ``match_cancel``, ``match_requeue``;
* ``chunks``: a match played in chunks: ``chunk_claim``, ``chunk_record``, ``chunk_release``, the
  re-plan when a chunk played a bot that should have been stopped;
* ``execution``: a worker's ``match_execute`` (the loop that plays chunks) and ``Progress`` (the
  live games and the leases);
* ``results``: a whole result recorded (``match_finish``, ``match_record_result``): games,
  failures, totals, the entrants' summary, failure health;
* ``after``: what follows the end of a match (``match_ended``);
* ``sweeper``: ``matches_sweep``, for lost workers and lost messages.

The arrows run one way, execution -> chunks -> states -> results -> after (the sweeper uses states
and after), never back.
The worker's identity and database retries are below the apps (lineit_platform/workers.py). The
names below are the ones the rest of the platform calls; each can also be imported from its module.
"""

from .chunks import chunk_claim, chunk_record, chunk_release
from .execution import Progress, Superseded, match_execute
from .results import entrant_summary, match_record_result
from .states import (
    INTERACTIVE_ORIGINS,
    ROUTES,
    match_cancel,
    match_claim,
    match_deadline,
    match_duration_check,
    match_queue,
    match_release,
    match_requeue,
    match_schedule,
    match_spec,
    ranked_while_active,
)
from .sweeper import matches_sweep

__all__ = [
    "INTERACTIVE_ORIGINS",
    "ROUTES",
    "Progress",
    "Superseded",
    "chunk_claim",
    "chunk_record",
    "chunk_release",
    "entrant_summary",
    "match_cancel",
    "match_claim",
    "match_deadline",
    "match_duration_check",
    "match_execute",
    "match_queue",
    "match_record_result",
    "match_release",
    "match_requeue",
    "match_schedule",
    "match_spec",
    "matches_sweep",
    "ranked_while_active",
]
