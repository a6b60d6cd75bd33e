"""A publish killed before its cleanup leaves its pin (a hard link holding a whole old
version of the warehouse) beside the file: the next publish removes it, and never a pin
that a running publish still reads."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from warehouse import publish as pub


def _pins(warehouse):
    return sorted(p.name for p in warehouse.parent.glob(f".{warehouse.name}.publish-*"))


@pytest.mark.slow
def test_a_killed_publishs_pin_is_removed_by_the_next_publish(warehouse, tmp_path):
    # a real publish process, killed with SIGKILL while it holds its pin
    code = (
        "import os, sys, signal\n"
        "from pathlib import Path\n"
        "from warehouse import publish as pub\n"
        "with pub.pinned(Path(sys.argv[1]), Path(sys.argv[2])):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    for _ in range(2):  # the second run removes the first one's pin before it dies
        proc = subprocess.run([sys.executable, "-c", code, str(warehouse), str(tmp_path)])
        assert proc.returncode == -signal.SIGKILL
        assert len(_pins(warehouse)) == 1
    # a pin from before pins named their process is stale too
    os.link(warehouse, warehouse.with_name(f".{warehouse.name}.publish-0a1b2c3d"))
    assert len(_pins(warehouse)) == 2
    # a publish running now (this process) keeps its own pin while the next one starts
    with pub.pinned(warehouse, tmp_path) as mine:
        pub.publish(warehouse, str(tmp_path / "out"))
        assert _pins(warehouse) == [mine.name]
    assert _pins(warehouse) == []
