"""`make run`'s path, end to end: SQLite and the filesystem broker (nothing installed), the web
server, a worker and beat started by `manage.py runplatform`, and the built-in bots playing ladder
matches through the sandbox. Every other test uses PostgreSQL and Redis; this one proves the
embedded default works too."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from lineit.replay_signature import check_signature, read_public_key

ROOT = Path(__file__).resolve().parent.parent
PAGES = ["/", "/tournaments/", "/accounts/login/", "/api/leaderboard/?ruleset=standard", "/api/matches/",
         "/api/bots/", "/api/tournaments/", "/api/schema/", "/api/docs/"]  # fmt: skip


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def get(url: str) -> tuple[int, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_platform_runs_and_plays_ladder_matches_on_sqlite_and_the_filesystem_broker(tmp_path: Path) -> None:
    port = free_port()
    env = {
        **{name: value for name, value in os.environ.items() if name != "REPLAY_SIGNING_KEY"},
        "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite3'}",
        "CELERY_BROKER_URL": "filesystem://",
        "VAR_DIR": str(tmp_path),
        "LADDER_INTERVAL_SECONDS": "2",
        "LADDER_TABLE_SIZES": "2",
        "LADDER_DEALS_PER_MATCH": "1",
    }
    log = (tmp_path / "platform.log").open("w")
    platform = subprocess.Popen(
        [sys.executable, "manage.py", "runplatform", "--bind", f"127.0.0.1:{port}", "--concurrency", "1"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 240
        finished: list[dict[str, object]] = []
        while time.monotonic() < deadline and not finished:
            assert platform.poll() is None, (tmp_path / "platform.log").read_text()[-3000:]
            time.sleep(2)
            try:
                status, body = get(f"{base}/api/matches/?status=finished")
            except OSError:
                continue  # the web server is still starting
            assert status == 200, body[:500]
            finished = json.loads(body)["results"]
        assert finished, "no ladder match finished in time:\n" + (tmp_path / "platform.log").read_text()[-3000:]
        match = finished[0]
        assert match["ranked"] is True
        status, body = get(f"{base}/api/matches/{match['id']}/")
        assert status == 200 and json.loads(body)["sandbox_tier"] in ("bubblewrap", "landlock"), body[:500]
        for page in [*PAGES, f"/matches/{match['id']}/", f"/api/matches/{match['id']}/"]:
            status, body = get(base + page)
            assert status == 200, (page, body[:500])
        # Replays are signed with a key made once in VAR_DIR, its public half published.
        status, pem = get(f"{base}/.well-known/lineit-replay-key.pem")
        assert status == 200 and (tmp_path / "replay-signing-key.pem").stat().st_mode & 0o777 == 0o600
        status, body = get(json.loads(get(f"{base}/api/games/?match={match['id']}")[1])["results"][0]["replay_url"])
        assert status == 200 and check_signature(json.loads(body), read_public_key(pem)).ok
    finally:
        os.killpg(platform.pid, signal.SIGTERM)
        try:
            platform.wait(60)
        finally:
            os.killpg(platform.pid, signal.SIGKILL) if platform.poll() is None else None
            log.close()
