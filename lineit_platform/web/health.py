"""What the bot, version and My bots pages show of failure health and placement
(docs/platform.md, "Failure health" and "Placement"), read by tournaments/selectors/versions.py,
which the API reads too. A few queries for a whole page, never one per row."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.conf import settings

from bots.models import Bot, BotVersion
from tournaments.selectors.versions import failure_counts, failure_health, placement_progress


def with_health(versions: Iterable[BotVersion]) -> list[BotVersion]:
    """The versions, each given ``failure_kinds`` (kind -> count in the window), ``failure_total`` and
    ``placement`` (its PlacementProgress while in placement, else None): three queries at most."""
    listed = list(versions)
    counts = failure_counts(version_ids=[version.pk for version in listed])
    progress = placement_progress(listed)
    for version in listed:
        version.failure_kinds = counts.get(version.pk, {})
        version.failure_total = sum(version.failure_kinds.values())
        version.placement = progress.get(version.pk)
    return listed


def bot_health(versions: list[BotVersion]) -> dict[str, Any]:
    return {"failure_health": failure_health(version.pk for version in versions)}


def version_health(version: BotVersion) -> dict[str, Any]:
    return {
        "failure_health": failure_health([version.pk]),
        "placement": placement_progress([version]).get(version.pk),
        "failing_limit": settings.LADDER_MAX_CONSECUTIVE_FAILING_MATCHES,
    }


def failures_by_bot(bots: Iterable[Bot]) -> dict[int, dict[str, int]]:
    return failure_counts(bot_ids=[bot.pk for bot in bots])
