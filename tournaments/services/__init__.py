"""Writes that span models. Keyword-only, typed, atomic, named ``<entity>_<action>``."""

from .ladder import ladder_tick
from .matches import (
    match_cancel,
    match_claim,
    match_execute,
    match_record_result,
    match_release,
    match_requeue,
    match_schedule,
    matches_sweep,
)
from .ratings import ratings_apply_pending, ratings_recompute

__all__ = [
    "ladder_tick",
    "match_cancel",
    "match_claim",
    "match_execute",
    "match_record_result",
    "match_release",
    "match_requeue",
    "match_schedule",
    "matches_sweep",
    "ratings_apply_pending",
    "ratings_recompute",
]
