"""Which isolation tier works on this machine, found by starting a real sandbox in each.

Each attempt starts the bot host exactly as a match would, with the canary flag: once confined,
instead of loading a bot it tries a handful of attacks (sockets, fork, exec, writing files,
reading a file outside its folder, signalling its parent) and reports each one. A tier is usable
only if the host came up and every attack was blocked. If no tier is usable the platform refuses
to run untrusted bots (fail closed).

A tier that works is not enough: a bot must find the same world in every tier it may run in
(world.py). The Landlock tier cannot give it that (a bot there sees the machine's paths and can
stat any of them: Landlock has no right for it, and without namespaces nothing else hides them;
docs/sandbox.md), so untrusted bots run there only when SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW says
the operator accepts the difference.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from lineit.botkit.scratch import scratch_folder

from .launch import BUBBLEWRAP, TIERS, bwrap_path, host_config, launch, read_tail, stderr_file
from .protocol import CANARY, CONFINED, Channel, describe
from .runtime import stage_bot

TIER_VARIABLE = "SANDBOX_TIER"  # empty or unset: the best tier that works
HOST_VIEW_VARIABLE = "SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW"  # 1/true/yes: run bots in the Landlock tier too
SAME_WORLD = frozenset({BUBBLEWRAP})  # the tiers that give a bot only the world of world.py
CANARY_SECONDS = 10.0
CANARY_BOT = "def act(observation):\n    return observation['legal_actions'][0]\n"


class SandboxUnavailable(Exception):
    """No isolation tier works here; the message says what was tried and why each failed."""


@dataclass(frozen=True)
class TierReport:
    name: str | None  # the best working tier, None when none works
    attempts: list[tuple[str, bool, str]] = field(default_factory=list)  # (tier, ok, reason)

    @property
    def working(self) -> list[str]:
        return [tier for tier, ok, _ in self.attempts if ok]

    def explain(self) -> str:
        return "; ".join(f"{tier}: {'works' if ok else 'failed'} ({reason})" for tier, ok, reason in self.attempts)


_lock = threading.Lock()
_cached: TierReport | None = None


def detect_tier(*, refresh: bool = False) -> TierReport:
    """Try every tier for real (about 50 ms each), best first; cached per process."""
    global _cached
    with _lock:
        if _cached is None or refresh:
            attempts = [(tier, *try_tier(tier)) for tier in TIERS]
            working = [tier for tier, ok, _ in attempts if ok]
            _cached = TierReport(name=working[0] if working else None, attempts=attempts)
        return _cached


def requested_tier() -> str | None:
    """The tier SANDBOX_TIER asks for, None when it is empty (use the best that works). The one
    reading of the variable: the command line, the worker and ``lineit doctor`` all decide
    through require_tier()."""
    value = os.environ.get(TIER_VARIABLE, "").strip()
    if not value:
        return None
    if value not in TIERS:
        raise SandboxUnavailable(
            f"{TIER_VARIABLE}={value!r} is not a sandbox tier: set it to one of {', '.join(TIERS)}, "
            "or leave it empty to use the best one that works here"
        )
    return value


def host_view_accepted() -> bool:
    """Whether SANDBOX_LANDLOCK_ACCEPT_HOST_VIEW accepts running untrusted bots in the Landlock
    tier, where they see this machine's paths (empty or unset: no)."""
    value = os.environ.get(HOST_VIEW_VARIABLE, "").strip().lower()
    if value in ("", "0", "false", "no"):
        return False
    if value in ("1", "true", "yes"):
        return True
    raise SandboxUnavailable(f"{HOST_VIEW_VARIABLE}={value!r} is not a yes or no: set it to 1 or leave it empty")


def require_tier(tier: str | None = None) -> str:
    """The tier to run bots in: ``tier`` if given, else the one SANDBOX_TIER asks for, else the
    best one detected; raises SandboxUnavailable when that one does not work (fail closed)."""
    return decide_tier(detect_tier(), tier if tier is not None else requested_tier())


def decide_tier(report: TierReport, requested: str | None) -> str:
    allowed = [tier for tier in report.working if tier in SAME_WORLD or host_view_accepted()]
    if requested is None:
        if not allowed:
            raise SandboxUnavailable(unavailable_message(report))
        return allowed[0]
    if requested not in TIERS:
        raise ValueError(f"unknown sandbox tier {requested!r}; tiers are {', '.join(TIERS)}")
    if requested not in report.working:
        raise SandboxUnavailable(f"the {requested} tier does not work here: {report.explain()}")
    if requested not in allowed:
        raise SandboxUnavailable(host_view_message(requested))
    return requested


def host_view_message(tier: str) -> str:
    return (
        f"the {tier} tier works here but does not give bots the sandbox's own world: a bot there sees "
        "this machine's paths and can stat any file (the sizes and owners of the worker's files, which "
        "processes run), so untrusted bots are not run in it. Set "
        f"{HOST_VIEW_VARIABLE}=1 to run them there anyway, or allow user namespaces for bubblewrap"
    )


def unavailable_message(report: TierReport) -> str:
    if report.working:  # only tiers that show the machine work: refused by default
        return f"{host_view_message(report.working[0])}. Tried: {report.explain()}."
    return (
        "no sandbox tier works on this machine, so untrusted bots will not be run. "
        f"Tried: {report.explain()}. Install bubblewrap and libseccomp2 and allow unprivileged user "
        "namespaces, or use a kernel with Landlock; or play trusted bots in-process explicitly."
    )


def try_tier(tier: str) -> tuple[bool, str]:
    """(works, reason): start a confined host and check that the canary attacks all fail."""
    if tier == BUBBLEWRAP and bwrap_path() is None:
        return False, "bwrap is not installed (Debian package bubblewrap)"
    started = time.perf_counter()
    with scratch_folder("canary") as scratch:
        secret = Path(scratch) / "secret"
        secret.write_text("the worker's secret\n")
        bot = Path(scratch) / "canary_bot.py"
        bot.write_text(CANARY_BOT)
        staged = stage_bot(bot)
        try:
            with stderr_file() as stderr:
                return _run_canary(tier, staged, stderr, str(secret), started)
        except Exception as error:
            return False, f"{type(error).__name__}: {error}"
        finally:
            staged.cleanup()


def _run_canary(tier: str, staged, stderr, secret: str, started: float) -> tuple[bool, str]:
    launched = launch(tier, staged, stderr, host_config(tier, staged, 256, 10, canary_secret=secret))
    channel = Channel(launched.to_host, launched.from_host)
    try:
        deadline = time.monotonic() + CANARY_SECONDS
        try:
            confined = channel.receive(deadline)
            report = channel.receive(deadline)
        except Exception as error:
            launched.process.kill()
            launched.process.wait()
            tail = read_tail(stderr, 600).strip()
            return False, f"the sandbox did not start ({error}; exit status {launched.process.returncode}): {tail}"
        if confined != (CONFINED, b"") or report[0] != CANARY:
            return False, f"unexpected canary messages {describe(*confined)} {describe(*report)}"
        lines = [line.split("\t") for line in report[1].decode().splitlines()]
        escaped = [name for name, verdict, *_ in lines if verdict != "blocked"]
        if escaped:
            return False, f"the canary got out: {', '.join(escaped)}"
        elapsed = (time.perf_counter() - started) * 1000
        return True, f"sandbox started and blocked {len(lines)} canary attacks in {elapsed:.0f} ms"
    finally:
        if launched.process.poll() is None:
            launched.process.kill()
        launched.process.wait()
        channel.close()
        if launched.info is not None:
            os.close(launched.info)


def doctor_report() -> str:
    """Human-readable: the tier found, and what was tried and why it failed."""
    from .runtime import interpreter

    report = detect_tier(refresh=True)
    lines = ["Line-it sandbox doctor"]
    lines.append(f"  kernel: {os.uname().release}, user: uid {os.getuid()}")
    lines.append(f"  interpreter for bots: {interpreter().executable}")
    lines.append(f"  bwrap: {bwrap_path() or 'not installed'}")
    lines.append(f"  Landlock ABI: {landlock_abi() or 'not available'}")
    for tier, ok, reason in report.attempts:
        lines.append(f"  [{'ok' if ok else 'FAILED'}] {tier}: {reason}")
    if any(tier not in SAME_WORLD for tier in report.working):
        accepted = "accepted" if _accepted_or_none() else "not accepted"
        lines.append(
            f"  bots in the landlock tier see this machine's paths: {accepted} ({HOST_VIEW_VARIABLE}; docs/sandbox.md)"
        )
    requested = None
    try:
        requested = requested_tier()
        chosen = decide_tier(report, requested)
    except SandboxUnavailable as error:
        if report.name is None:
            what = "NO TIER WORKS"
        elif requested is None and os.environ.get(TIER_VARIABLE, "").strip() == "":
            what = "NO TIER RUNS UNTRUSTED BOTS HERE"
        else:
            what = f"THE TIER {TIER_VARIABLE} ASKS FOR CANNOT RUN BOTS"
        lines.append(f"Result: {what}. Untrusted bots will not be run (fail closed).")
        lines.append(str(error))
    else:
        why = f"asked for by {TIER_VARIABLE}" if requested else "the best that works here"
        lines.append(f"Result: bots run in the {chosen} tier ({why}).")
    if os.getuid() == 0:
        lines.append(
            "Warning: running as root. Production workers should run as an unprivileged user "
            "(RLIMIT_NPROC is not enforced for root, and root-owned 0600 files in a bot's folder are readable)."
        )
    return "\n".join(lines)


def _accepted_or_none() -> bool | None:
    try:
        return host_view_accepted()
    except SandboxUnavailable:
        return None


def landlock_abi() -> int:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return max(0, int(libc.syscall(444, None, 0, 1)))
    except OSError:
        return 0
