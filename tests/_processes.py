"""Servers and processes a test starts itself: a free loopback port (never a fixed one:
other test runs share the machine) and a polite stop of a process group."""

from __future__ import annotations

import os
import signal
import socket
import subprocess


def free_port() -> int:
    """A loopback port nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(proc: subprocess.Popen, timeout: float = 20) -> None:
    """End a process group this test started (`start_new_session=True`), politely first:
    SIGTERM, then SIGKILL if it has not ended within `timeout` seconds."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=timeout)
