"""What importing lineit.botkit.types costs a bot at start-up, in a fresh interpreter started as
the sandbox starts the bot host (python -I -S, the kit on sys.path): the median wall time of
``import lineit.botkit.interface`` alone and of it plus ``lineit.botkit.types``, interleaved,
and the same with ``lineit.engine`` already imported (which loads typing itself).

    .venv/bin/python benchmarks/types_import.py [runs]
"""

from __future__ import annotations

import statistics
import subprocess
import sys
from pathlib import Path

KIT = Path(__file__).resolve().parents[1]
CASES = {
    "interface": "import lineit.botkit.interface",
    "interface + types": "import lineit.botkit.interface, lineit.botkit.types",
    "engine": "import lineit.botkit.interface, lineit.engine",
    "engine + types": "import lineit.botkit.interface, lineit.engine, lineit.botkit.types",
}
PROBE = "import sys, time; sys.path.insert(0, {kit!r}); t = time.perf_counter(); {code}; print(time.perf_counter() - t)"


def main(runs: int) -> None:
    times: dict[str, list[float]] = {name: [] for name in CASES}
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    for _ in range(runs):
        for name, code in CASES.items():  # interleaved: the machine's noise falls on every case alike
            probe = PROBE.format(kit=str(KIT), code=code)
            done = subprocess.run([str(base), "-I", "-S", "-c", probe], capture_output=True, text=True, check=True)
            times[name].append(float(done.stdout) * 1000)
    for name, values in times.items():
        print(f"{name:<18} median {statistics.median(values):6.2f} ms over {runs} runs")
    for without, with_types in (("interface", "interface + types"), ("engine", "engine + types")):
        extra = statistics.median(times[with_types]) - statistics.median(times[without])
        print(f"types after {without}: +{extra:.2f} ms")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 40)
