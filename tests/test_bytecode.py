"""The run's shared bytecode cache (tests/_bytecode.py): where Python writes no bytecode,
a process a test starts reads and writes its modules' bytecode in the run's temporary
directory, outside the checkout and the virtual environment; a killed run's directory is
removed by the next run.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from tests import _bytecode

REPO = Path(__file__).resolve().parents[1]


@pytest.mark.slow  # a child process
def test_a_child_process_compiles_into_the_runs_cache_outside_the_checkout(tmp_path):
    if _bytecode._made is None and "PYTHONPYCACHEPREFIX" not in os.environ:
        pytest.skip("this run writes bytecode beside the sources, as Python does by default")
    prefix = Path(os.environ["PYTHONPYCACHEPREFIX"])
    assert not prefix.resolve().is_relative_to(REPO), prefix  # nor the .venv inside it
    module = tmp_path / "probe_module.py"
    module.write_text("VALUE = 1\n")
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys, probe_module; "
         "print(json.dumps([sys.pycache_prefix, sys.dont_write_bytecode]))"],
        cwd=tmp_path, capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert json.loads(done.stdout) == [str(prefix), False]
    assert not (tmp_path / "__pycache__").exists()
    assert list(prefix.rglob("probe_module.*.pyc")), "the child wrote no bytecode to the cache"


def test_the_directory_of_a_killed_run_is_removed_by_the_next_run(tmp_path, monkeypatch):
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    gone = 2**30  # above any system's largest process id: no such process
    killed = tmp_path / f"{_bytecode.PREFIX}{gone}-abc"
    running = tmp_path / f"{_bytecode.PREFIX}{os.getpid()}-def"
    other = tmp_path / "gpu-pricing-pyc-of-something-else"
    for folder in (killed, running, other):
        (folder / "sub").mkdir(parents=True)
    _bytecode._remove_left_behind()
    assert not killed.exists() and running.exists() and other.exists()
