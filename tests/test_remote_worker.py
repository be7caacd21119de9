"""A worker on another host, as hosts would run it: a Celery worker in a network namespace of its
own (ip netns, a veth pair on a private /30) with its own empty MEDIA_ROOT and cache, the web's
MEDIA_ROOT hidden from it, reaching PostgreSQL and Redis only over the host side's veth address.
Bots uploaded through the API into the web's default (local) storage are validated and play
matches to the end on it, and the results are recorded: the worker needs only the database URL
and the broker URL. The test makes the namespace and removes it, also when it fails."""

from __future__ import annotations

import asyncio
import io
import os
import shutil
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
import redis
from celery_processes import wait_for
from django.conf import settings
from django.db import connection
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from bots.models import BotVersion
from bots.runner import sandbox_tier_detect
from bots.services import builtin_bots_register
from lineit.botkit.limits import Limits
from tournaments.models import Game, GameFailure, Match, RatingEvent
from tournaments.services.matches.states import match_schedule
from tournaments.services.ratings_recompute import ratings_recompute

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

CELERY = Path(sys.executable).with_name("celery")
FIRST_BOT = b"def act(observation):\n    return observation['legal_actions'][0]\n"
LAST_BOT = b"def act(observation):\n    return observation['legal_actions'][-1]\n"
QUICK = Limits(move_seconds=0.05, bank_seconds=1, move_timeout_seconds=0.5, startup_seconds=5)
FORWARDED_PORTS = (5432, 6379)  # PostgreSQL and Redis, which listen on 127.0.0.1 only


def _ip(*arguments: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["ip", *arguments], capture_output=True, text=True, check=check, timeout=30)


def _why_no_namespaces() -> str | None:
    if shutil.which("ip") is None:
        return "no `ip` command (iproute2) to make a network namespace"
    if os.geteuid() != 0:
        return "making a network namespace needs root"
    return None


class Forwarder:
    """Plain TCP from ``host``:port to 127.0.0.1:port for each port, on an event loop in a
    thread: what a host's firewall and listen_addresses would open to the workers' network."""

    def __init__(self, host: str, ports: tuple[int, ...]) -> None:
        self.loop = asyncio.new_event_loop()
        self.servers: list[asyncio.Server] = []
        for port in ports:
            self.servers.append(
                self.loop.run_until_complete(
                    asyncio.start_server(self._connection(port), host, port, reuse_address=True)
                )
            )
        self.thread = threading.Thread(target=self.loop.run_forever, name="forwarder", daemon=True)
        self.thread.start()

    def _connection(self, port: int):  # type: ignore[no-untyped-def]
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", port)
            except OSError:
                writer.close()
                return
            await asyncio.gather(self._pipe(reader, upstream_writer), self._pipe(upstream_reader, writer))

        return handle

    @staticmethod
    async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.close()

    def stop(self) -> None:
        async def close() -> None:
            for server in self.servers:
                server.close()
            for task in asyncio.all_tasks() - {asyncio.current_task()}:
                task.cancel()

        asyncio.run_coroutine_threadsafe(close(), self.loop).result(10)
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(10)


@dataclass
class Namespace:
    name: str
    host_address: str  # the host's end of the veth pair: the worker reaches the servers here
    worker_address: str

    def run(self, *command: str, **kwargs) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
        return subprocess.run(["ip", "netns", "exec", self.name, *command], capture_output=True, text=True, **kwargs)


@pytest.fixture
def namespace() -> Iterator[Namespace]:
    """A network namespace joined to the host by a veth pair on 10.231.<n>.0/30, removed after."""
    reason = _why_no_namespaces()
    if reason is not None:
        pytest.skip(f"no network namespace here: {reason}")
    tag = os.getpid() % 250 + 1
    name, host_link, worker_link = f"lineit-remote-{os.getpid()}", f"lrw{os.getpid()}h"[:15], f"lrw{os.getpid()}w"[:15]
    host_address, worker_address = f"10.231.{tag}.1", f"10.231.{tag}.2"
    made = _ip("netns", "add", name, check=False)
    if made.returncode != 0:
        pytest.skip(f"no network namespace here: ip netns add: {made.stderr.strip()}")
    try:
        _ip("link", "add", host_link, "type", "veth", "peer", "name", worker_link)
        _ip("link", "set", worker_link, "netns", name)
        _ip("addr", "add", f"{host_address}/30", "dev", host_link)
        _ip("link", "set", host_link, "up")
        _ip("-n", name, "addr", "add", f"{worker_address}/30", "dev", worker_link)
        _ip("-n", name, "link", "set", worker_link, "up")
        _ip("-n", name, "link", "set", "lo", "up")
        yield Namespace(name=name, host_address=host_address, worker_address=worker_address)
    finally:
        _ip("netns", "del", name, check=False)  # takes the worker's end of the pair, and so the pair, with it
        _ip("link", "del", host_link, check=False)


@pytest.fixture
def forwarder(namespace: Namespace) -> Iterator[Forwarder]:
    started = Forwarder(namespace.host_address, FORWARDED_PORTS)
    yield started
    started.stop()


class RemoteWorker:
    """``celery worker`` inside the namespace, in a mount namespace of its own where the web's
    MEDIA_ROOT is an empty tmpfs: it can read bot code only from the database."""

    def __init__(self, namespace: Namespace, root: Path) -> None:
        database = connection.settings_dict
        broker_db = settings.CELERY_BROKER_URL.rsplit("/", 1)[-1]
        self.media, self.cache = root / "media", root / "cache"
        self.media.mkdir()
        variables = os.environ | {
            "DATABASE_URL": f"postgres://{database['USER']}@{namespace.host_address}:5432/{database['NAME']}",
            "CELERY_BROKER_URL": f"redis://{namespace.host_address}:6379/{broker_db}",
            "VAR_DIR": str(root / "var"),
            "MEDIA_ROOT": str(self.media),
            "BOT_CODE_CACHE_DIR": str(self.cache),
            "LADDER_ENABLED": "false",  # no placement matches: only the test's
            "MATCH_TIME_LIMIT_SECONDS": "3600",
            "MATCH_RETRY_DELAY_SECONDS": "1",
        }
        hidden = Path(settings.MEDIA_ROOT)
        worker = [str(CELERY), "-A", "lineit_platform.celery", "worker", "-l", "info", "-c", "1"]
        worker += ["-Q", "interactive,bulk", "--without-gossip", "--without-mingle", "--without-heartbeat"]
        worker += ["-n", f"remote{os.getpid()}@%h"]
        script = f'mount -t tmpfs -o size=1m,mode=0555 lineit-hidden "{hidden}" && exec "$@"'
        self.log_path = root / "worker.log"
        self.log = self.log_path.open("ab")
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespace.name, "unshare", "--mount", "--propagation", "private"]
            + ["sh", "-c", script, "sh", *worker],
            env=variables,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        self.log.close()


@pytest.fixture
def remote_worker(namespace: Namespace, forwarder: Forwarder, tmp_path: Path) -> Iterator[RemoteWorker]:
    broker = redis.Redis.from_url(settings.CELERY_BROKER_URL)
    broker.flushdb()  # no stale messages from earlier runs
    started = RemoteWorker(namespace, tmp_path)
    yield started
    started.stop()
    broker.flushdb()


def _upload(client: APIClient, name: str, code: bytes) -> int:
    bot = client.post("/api/bots/", {"name": name}, format="json")
    assert bot.status_code == 201, bot.content
    handle = io.BytesIO(code)
    handle.name = "bot.py"
    version = client.post(f"/api/bots/{bot.json()['id']}/versions/", {"file": handle}, format="multipart")
    assert version.status_code == 201, version.content
    return int(version.json()["id"])


def test_the_namespace_reaches_the_servers_only_through_the_veth(namespace: Namespace, forwarder: Forwarder) -> None:
    probe = "import socket, sys; socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()"
    assert namespace.run(sys.executable, "-c", probe, "127.0.0.1", "5432", timeout=30).returncode != 0
    assert namespace.run(sys.executable, "-c", probe, namespace.host_address, "5432", timeout=30).returncode == 0
    assert namespace.run(sys.executable, "-c", probe, namespace.host_address, "6379", timeout=30).returncode == 0


def test_uploaded_bots_play_to_the_end_on_a_worker_of_another_host(remote_worker: RemoteWorker, alice) -> None:  # type: ignore[no-untyped-def]
    # Given two bots uploaded through the API into the web's default storage (files under its
    # MEDIA_ROOT, which the worker cannot see), and a built-in one
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {Token.objects.get_or_create(user=alice)[0].key}")
    first, last = _upload(client, "alice-first", FIRST_BOT), _upload(client, "alice-last", LAST_BOT)
    (greedy,) = builtin_bots_register(names=("greedy",))
    for version in BotVersion.objects.filter(pk__in=[first, last]):
        assert (Path(settings.MEDIA_ROOT) / version.path).is_file()
    # When the worker in the namespace validates them
    wait_for(
        lambda: not BotVersion.objects.filter(pk__in=[first, last], status="validating").exists(),
        f"the validations ({remote_worker.log_path})",
        timeout=180,
    )
    versions = {
        version.pk: version for version in BotVersion.objects.select_related("bot").filter(pk__in=[first, last])
    }
    assert [versions[first].status, versions[last].status] == ["active", "active"]
    # And plays a ranked match of three and a test match of two
    ranked = match_schedule(
        versions=[versions[first], versions[last], greedy], games=6, ranked=True, seed=11, limits=QUICK
    )
    test = match_schedule(versions=[versions[last], versions[first]], games=4, seed=12, limits=QUICK)
    wait_for(
        lambda: not Match.objects.filter(pk__in=[ranked.pk, test.pk]).pending().exists(),
        f"the matches ({remote_worker.log_path})",
        timeout=300,
    )
    # Then both finished on that worker, every game recorded, no failure, and the ratings moved
    for match in Match.objects.filter(pk__in=[ranked.pk, test.pk]):
        assert (match.status, match.error) == ("finished", ""), remote_worker.log_path.read_text()[-3000:]
        assert match.worker.startswith(f"remote{os.getpid()}@")
        assert match.sandbox_tier == sandbox_tier_detect()  # the host's own tier works in the namespace
        assert Game.objects.filter(match=match).count() == match.games
    assert not GameFailure.objects.filter(match__in=[ranked, test]).exists()
    assert RatingEvent.objects.filter(match=ranked).count() == 6 * 3
    assert ratings_recompute().mismatches == []
    # And the worker read the uploads from the database into its cache, checked by their hashes;
    # its own MEDIA_ROOT stayed empty, and the built-in came from the code it ships
    cached = sorted(path.parent.name for path in remote_worker.cache.glob("*/bot.py"))
    assert cached == sorted(versions[pk].sha256 for pk in (first, last))
    assert not any(remote_worker.media.glob("versions/*"))
