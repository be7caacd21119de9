"""A pytest plugin (``-p lineit_platform.testing`` in pyproject.toml) that gives the test run its
own PostgreSQL database and Redis DB number before pytest-django reads the settings.

pytest-django configures Django before any conftest.py is imported, so these defaults cannot
live in tests/conftest.py. Variables already set in the environment win.
"""

from __future__ import annotations

import os
import tempfile

TEST_ENVIRONMENT = {
    "DJANGO_SETTINGS_MODULE": "lineit_platform.settings",
    # pytest-django creates and drops test_lineit; the "lineit" database itself is never touched.
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/lineit",
    "CELERY_BROKER_URL": "redis://127.0.0.1:6379/13",
    # Long enough for the production check (lineit.E007): the tests run PostgreSQL with DEBUG off.
    "SECRET_KEY": "test-secret-key-not-for-production-0123456789-abcdefghijklmnopqrstuvwxyz",
    # The key served replays are signed with (lineit.E009): production, as above, needs one.
    "REPLAY_SIGNING_KEY": "dGVzdC1yZXBsYXktc2lnbmluZy1rZXktMzItYnl0ZXM=",
    "LADDER_TABLE_SIZES": "2,3",
}

for name, value in TEST_ENVIRONMENT.items():
    os.environ.setdefault(name, value)
# One fixed folder, not one per run: uploaded code is stored by content hash, so runs can share it.
os.environ.setdefault("VAR_DIR", os.path.join(tempfile.gettempdir(), "lineit-test-var"))
