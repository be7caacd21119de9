"""What the bots app announces: django.dispatch signals, sent with ``sender=BotVersion``.

The bots app knows nothing of the notifications app. It says what happened to a version; the
notifications app connects its receivers in its AppConfig.ready() and decides whom to tell
(notifications/receivers.py). A signal is sent inside the service's transaction, so a receiver
that starts work sends its task after commit.
"""

from __future__ import annotations

from django.dispatch import Signal

# A version's validation ended: ``version_id``. The version is now active (it passed) or
# rejected (bots.services.bot_version_validate).
version_validation_ended = Signal()

# A version was taken off the ladder: ``version_id`` (bots.services.bot_version_ladder_remove;
# the reason is on the row).
version_off_ladder = Signal()
