"""Ending a server process the tests started: a signal, a bounded wait, then SIGKILL."""

from __future__ import annotations

import signal
import subprocess

__all__ = ["end_process"]


def end_process(
    process: subprocess.Popen[bytes] | None, sig: signal.Signals, *, timeout: float
) -> None:
    """Send ``sig`` and wait up to ``timeout`` seconds; kill the process if it lingers."""
    if process is None or process.poll() is not None:
        return
    process.send_signal(sig)
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
