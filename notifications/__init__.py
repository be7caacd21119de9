"""Notifications: email and webhooks about what happened to a user's bots and matches
(docs/platform.md, "Notifications"), a Django app of its own.

The other apps announce what happened (bots/signals.py, tournaments/signals.py) and import
nothing from here; this app decides whom to tell and how:

- ``receivers.py``: what each announcement tells, connected by ``apps.NotificationsConfig.ready()``;
  a receiver only sends a task after the announcing transaction commits;
- ``tasks.py``: on the housekeeping queue, an event becomes notifications; on the outbound queue
  (a worker of its own), each is delivered by a task, tried again with exponential backoff;
- ``messages.py``: what each event tells whom, read from the rows when its task runs;
- ``services.py``: the writes (a user's settings, the notifications, their delivery) and the
  hooks that send the tasks (``notify`` for a message to one user);
- ``delivery.py``: one attempt at a time per user and channel, every attempt recorded, the sweeper;
- ``webhooks.py``: a webhook's URL checked and one JSON POST to it; ``mail.py``: the SMTP backend;
  ``deadline.py``: the total deadline every socket operation of both obeys;
- ``models.py``: the events, a user's settings and each notification.
"""
