"""Does an uploaded ``bot.py`` compile? Asked of a child process with limits, never of the web
process itself.

``compile()`` is not bounded by the size of its input: 200 KB of ``1+1+...`` raised RecursionError
in the web process, 800 KB cost it 2.1 s of CPU, a long run of unary minus raised MemoryError, and
a parser's C stack could overflow outright. So the source is compiled by a fresh interpreter
(``python -I -S``: no site, no environment) that first limits itself (``RLIMIT_CPU``,
``RLIMIT_AS``) and then reads the source from its standard input; the web process waits at most
``WALL_SECONDS`` and kills it after. Whatever the file, the web process spends a few milliseconds
(a fork and exec and a pipe) and the child at most ``CPU_SECONDS`` of CPU and ``MEMORY_BYTES``
of memory; any way the child ends other than with an answer is a refusal, as a too-costly file.

Measured (2 shared cores): an ordinary bot 30 ms in all; the largest legitimate sources (1 MiB
of functions, a 1 MiB list or dict literal) 0.2-0.45 s of the child's CPU and under 200 MiB;
the hostile ones end within the limits (RecursionError after at most 0.5 s, MemoryError at once).
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass

from lineit_platform.errors import Unavailable

CPU_SECONDS = 2
MEMORY_BYTES = 512 * 1024 * 1024
WALL_SECONDS = 10  # the CPU limit is the bound; this one is for a machine too busy to give it

# Runs in the child: limits first, then the source, then one line of JSON saying how it went.
_CHILD = r"""
import json, resource, sys
cpu, memory = int(sys.argv[1]), int(sys.argv[2])
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
source = sys.stdin.buffer.read().decode("utf-8")
try:
    compile(source, sys.argv[3], "exec", dont_inherit=True)
    answer = ["ok"]
except SyntaxError as error:
    answer = ["syntax", error.lineno, str(error.msg)]
except (RecursionError, MemoryError) as error:
    answer = [type(error).__name__]
except ValueError as error:
    answer = ["value", str(error)]
sys.stdout.write(json.dumps(answer))
"""


@dataclass(frozen=True)
class Compiled:
    """How compiling went: ``ok``, or ``syntax`` (with ``line`` and ``message``), ``too_deep``,
    ``too_costly`` (memory, CPU or time ran out, or the child died) or ``invalid`` (``message``)."""

    outcome: str
    line: int | None = None
    message: str = ""


def compile_in_child(source: str, filename: str) -> Compiled:
    """Compile ``source`` in a child process within the limits above. Raises Unavailable when no
    child can be started (the platform's trouble, not the file's)."""
    command = [sys.executable, "-I", "-S", "-c", _CHILD, str(CPU_SECONDS), str(MEMORY_BYTES), filename]
    try:
        child = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, close_fds=True
        )
    except OSError as error:
        raise Unavailable(f"the upload could not be checked now ({error.strerror or error}); try again") from None
    try:
        output, _ = child.communicate(source.encode("utf-8"), timeout=WALL_SECONDS)
    except subprocess.TimeoutExpired:
        child.kill()
        child.communicate()
        return Compiled("too_costly")
    try:
        answer = json.loads(output) if child.returncode == 0 else None
    except ValueError:
        answer = None
    if not isinstance(answer, list) or not answer:
        return Compiled("too_costly")  # killed by its CPU limit (SIGXCPU), out of memory, a crash
    if answer[0] == "ok":
        return Compiled("ok")
    if answer[0] == "syntax":
        return Compiled("syntax", line=answer[1], message=answer[2])
    if answer[0] == "RecursionError":
        return Compiled("too_deep")
    if answer[0] == "value":
        return Compiled("invalid", message=answer[1])
    return Compiled("too_costly")
