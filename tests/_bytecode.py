"""One bytecode cache for a test run, shared by every process it starts.

Where Python writes no bytecode (`PYTHONDONTWRITEBYTECODE=1`, set on the development
machine and in CI), every process compiles every module it imports from source: about a
second of CPU for a `gpu-pricing` command, several for a Prefect server, and the suite
starts over a hundred such processes (xdist's workers, the command line, refreshes, servers,
scripts). Here a run keeps the bytecode of its processes in one temporary directory of its
own (`PYTHONPYCACHEPREFIX`: read and written there only, never beside the sources in the
checkout or the virtual environment), so a module is compiled once per run; the directory
is removed when the run ends (a run killed before its end leaves it behind: the next run
removes it). A run where Python writes bytecode as usual (`__pycache__` folders), or that
names a `PYTHONPYCACHEPREFIX` of its own, is left as it is.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

ENV = "PYTHONPYCACHEPREFIX"
PREFIX = "gpu-pricing-pyc-"  # then the process id of the run that made it
_made: str | None = None  # the directory this process made for the run


def share() -> None:
    """In the process that starts the run (before xdist's workers start: they, and every
    process a test starts, inherit the setting), and for this process's own imports from
    now on."""
    global _made
    if os.environ.get(ENV) or not (
        sys.flags.dont_write_bytecode or os.environ.get("PYTHONDONTWRITEBYTECODE")
    ):
        return
    _remove_left_behind()
    _made = tempfile.mkdtemp(prefix=f"{PREFIX}{os.getpid()}-")
    os.environ[ENV] = _made
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    sys.pycache_prefix = _made
    sys.dont_write_bytecode = False


def _remove_left_behind() -> None:
    """The directories of runs that were killed before their end (no such process now)."""
    for folder in Path(tempfile.gettempdir()).glob(f"{PREFIX}*-*"):
        pid = folder.name.removeprefix(PREFIX).split("-", 1)[0]
        if pid.isdigit() and folder.is_dir() and not _alive(int(pid)):
            shutil.rmtree(folder, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def remove() -> None:
    """At the end of the run, in the process that made the directory."""
    global _made
    if _made:
        shutil.rmtree(_made, ignore_errors=True)
        _made = None
