"""What the tournaments app announces: django.dispatch signals. The notifications app connects
its receivers to them (notifications/receivers.py) and decides whom to tell; tournaments names
none of its functions or tasks. Each is sent inside the transaction of what happened, so a
receiver that starts work sends its task after commit.
"""

from __future__ import annotations

from django.dispatch import Signal

# A match ended (finished, failed or cancelled): ``match``, the row in hand (its origin and who
# requested it are on it: a receiver need not query). Sent by services/matches.py: _ended.
match_ended = Signal()

# A tournament finished: ``tournament_id`` (services/tournaments/running.py: _play).
tournament_finished = Signal()

# The SPRT of a new version against the previous one decided (services/sprt.py: _end; a
# cancelled test is no verdict and announces nothing): ``sprt_id``, ``owner_id`` (the bot's
# owner), ``bot`` (its name), ``new_version_number``, ``new_version`` and ``old_version`` (labels,
# mybot@v4), ``verdict`` ("H1 accepted", "H0 accepted" or "undecided"), ``games`` played, and
# ``elo`` with its 95% ``elo_interval`` (None when unknown), the estimate of new over old.
sprt_decided = Signal()
