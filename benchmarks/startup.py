"""Cold start: ``import sedimem`` and ``sedimem --help`` in fresh interpreters.

Each run is a new process (``python -c "import sedimem"``, ``python -m sedimem --help``),
timed from spawn to exit by the parent, so interpreter start-up is included: that is what a
user waits for. A bare ``python -c pass`` is timed alongside as the floor (the same runs,
interleaved, so machine load affects all three alike).

    python -m benchmarks.startup [--runs 20]

Prints a table and, as its last line, ``{"metrics": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

SUBJECTS = {
    "python": [sys.executable, "-c", "pass"],
    "import_sedimem": [sys.executable, "-c", "import sedimem"],
    "cli_help": [sys.executable, "-m", "sedimem", "--help"],
}
TARGETS_S = {"import_sedimem": 0.2, "cli_help": 0.3}


def timed(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20, help="cold starts per subject")
    args = parser.parse_args()
    for command in SUBJECTS.values():  # the first run of each warms the page cache only
        timed(command)
    samples: dict[str, list[float]] = {name: [] for name in SUBJECTS}
    for _ in range(args.runs):
        for name, command in SUBJECTS.items():
            samples[name].append(timed(command))
    metrics: dict[str, float] = {"load_1m": os.getloadavg()[0]}
    print(f"{'':16} {'p50 s':>7} {'p95 s':>7} {'target':>7}")
    for name, values in samples.items():
        q = statistics.quantiles(values, n=20, method="inclusive") if len(values) > 1 else values
        p50, p95 = statistics.median(values), q[-1]
        metrics[f"{name}.p50_s"] = p50
        metrics[f"{name}.p95_s"] = p95
        target = TARGETS_S.get(name)
        print(f"{name:16} {p50:>7.3f} {p95:>7.3f} {'' if target is None else target:>7}")
    print(f"load average {metrics['load_1m']:.2f}")
    print(json.dumps({"metrics": {k: round(v, 4) for k, v in metrics.items()}}))


if __name__ == "__main__":
    main()
