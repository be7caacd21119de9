"""The version page's SPRT block (templates/web/_sprt.html) reads what it shows through here, so
the page's view needs no change: the newest test of the version (tournaments/selectors/sprt.py)."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse

from bots.models import BotVersion, reads_text_of
from tournaments.selectors.sprt import (
    bot_tests_new_versions,
    llr_position,
    previous_active_version,
    sprt_summary,
    version_sprt,
)

register = template.Library()


@register.simple_tag
def version_sprt_panel(version: BotVersion, user: Any) -> dict[str, Any]:
    """The test (its summary, where its LLR stands between the bounds as a percentage), whether
    the viewer manages the bot, its setting, and the version a new test would be played against."""
    test = version_sprt(version.pk)
    manages = reads_text_of(user, version.bot.owner_id)
    panel: dict[str, Any] = {"test": None, "manages": manages}
    if test is not None:
        panel["test"] = sprt_summary(test)
        panel["position"] = round(100 * llr_position(test), 1)
        panel["counts"] = " / ".join(str(count) for count in test.pair_counts)
        panel["old_url"] = reverse("version-detail", args=[test.old_version.bot.name, test.old_version.number])
    if manages:
        panel["test_new_versions"] = bot_tests_new_versions(version.bot_id)
        running = test is not None and test.is_running
        if version.status == BotVersion.Status.ACTIVE and not running:
            panel["against"] = previous_active_version(version)
    return panel
