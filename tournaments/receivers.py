"""What the tournaments app does when the bots app announces that a version changed
(bots/signals.py: version_changed). The bots app only says what happened; what follows for the
ladder and the SPRT is decided here, and sent after commit to the tournaments app's own tasks.
Imported, and so connected, once by TournamentsConfig.ready()."""

from __future__ import annotations

from typing import Any

from django.dispatch import receiver

from bots import signals as bots
from lineit_platform.queueing import send_after_commit


@receiver(bots.version_changed, dispatch_uid="tournaments.receivers.version_changed")
def version_changed(sender: Any, *, version_id: int, change: str, placement_started: bool = False, **_: Any) -> None:
    """A version became active or was retired. Its placement just began: the ladder tick
    schedules its first placement match at once rather than at beat's next tick. Either way its
    SPRT task starts its test (a new active version) or cancels the tests it is in (one that
    left play): tournaments/services/sprt.py: sprt_version_changed reads the row."""
    if placement_started:
        send_after_commit("tournaments.tasks.ladder_tick", what=f"the placement of version {version_id}")
    send_after_commit("tournaments.tasks.sprt_version_changed_task", version_id, what=f"SPRT of version {version_id}")
