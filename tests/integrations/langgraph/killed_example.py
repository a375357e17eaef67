"""Runs the docs' example graph, then dies by SIGKILL instead of closing its memory.

    python killed_example.py AGENT_PY DB COMMAND THREAD TEXT

The example's ``main`` runs as written and prints its result; where the ``with`` block
would close the memory, the process kills itself: no close, no flush, no clean shutdown of
the store (a crash right after the graph stopped for approval).
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path
from typing import Any


def _crash(self: Any) -> None:
    sys.stdout.flush()
    os.kill(os.getpid(), signal.SIGKILL)


if __name__ == "__main__":
    example: dict[str, Any] = {"__name__": "example"}
    exec(Path(sys.argv[1]).read_text(), example)
    example["BackgroundMemory"].close = _crash
    example["main"](*sys.argv[2:6])
