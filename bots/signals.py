"""What the bots app announces: django.dispatch signals, sent with ``sender=BotVersion``.

The bots app knows nothing of the apps above it. It says what happened to a version; the apps
that care connect a receiver in their AppConfig.ready() and decide what follows: tournaments
(tournaments/receivers.py: a placement to schedule, an SPRT to start or cancel) and
notifications (notifications/receivers.py: whom to tell). A signal is sent inside the service's
transaction, so a receiver that starts work sends its task after commit.
"""

from __future__ import annotations

from django.dispatch import Signal

# A version's validation ended: ``version_id``. The version is now active (it passed) or
# rejected (bots.services.bot_version_validate).
version_validation_ended = Signal()

# A version was taken off the ladder: ``version_id`` (bots.services.bot_version_ladder_remove;
# the reason is on the row).
version_off_ladder = Signal()

# A version changed in a way that matters to the matches it may play: ``version_id``, ``change``
# (ACTIVATED: it passed its validation; RETIRED: it was asked to leave play) and, when activated,
# ``placement_started``: its placement began with it (bots.services.bot_version_activate).
version_changed = Signal()
ACTIVATED = "activated"
RETIRED = "retired"
