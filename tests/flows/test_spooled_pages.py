"""A live fetch's pages are spooled to disk as they arrive (flows.pipeline.SpooledPages) and
read back one at a time when landed: the same pages (bytes, sha256, order, failures), and
no crawl held in memory."""

from __future__ import annotations

import gc
import os
import signal
import subprocess
import sys
import tempfile
from datetime import datetime
from pathlib import Path

import pytest

from connectors.kit.page import FetchFailure, Page
from flows.pipeline import SpooledPages

AT = datetime(2026, 11, 25, 2)


def live(tmp_path: Path):
    csv = tmp_path / "offers.csv"
    csv.write_text("a,b\n1,2\n")
    yield Page("aws", "spot_price_history", AT, {"region": "us-east-1"}, body={"p": [1, 2.5]})
    yield FetchFailure("aws", "spot_price_history", "eu-west-1", RuntimeError("503"))
    yield Page("aws", "price_list", AT, {"region": "us-east-1"}, path=csv)
    yield Page("aws", "spot_price_history", AT, {"region": "us-west-2"}, text='{"p":[]}')


def test_spooled_pages_are_the_fetched_pages_read_back_from_disk(tmp_path):
    expected = [i.compact() if isinstance(i, Page) else i for i in live(tmp_path)]
    spooled = SpooledPages(live(tmp_path))
    assert spooled.pages == 3
    folder = Path(spooled._folder.name)
    assert sorted(p.name for p in folder.iterdir()) == ["0.json", "3.json"]
    for _ in range(2):  # read again (a retried landing) gives the same pages
        got = list(spooled)
        assert [type(i) for i in got] == [type(i) for i in expected]
        for g, e in zip(got, expected, strict=True):
            if isinstance(e, Page):
                assert (g.sha256, g.content, g.request, g.fetched_at, g.path) == (
                    e.sha256, e.content, e.request, e.fetched_at, e.path
                )
            else:
                assert (g.provider, g.endpoint, g.scope, str(g.error)) == (e.provider, e.endpoint, e.scope, str(e.error))
    del spooled, got
    gc.collect()
    assert not folder.exists()  # the spool goes with the pages


# the child's own peak: /proc's VmHWM belongs to the new program (getrusage's ru_maxrss is
# kept across exec on Linux, so a child of a large pytest worker would report the worker's)
MEMORY = """
import re, sys
from datetime import datetime
from connectors.kit.page import Page
from flows.pipeline import SpooledPages
def live():
    for n in range(200):  # 200 pages of ~1 MB each
        yield Page("azure", "retail_prices", datetime(2026, 11, 25), {"page": n},
                   text='{"Items": [' + ",".join(['{"x": 1.0}'] * 100_000) + ']}')
pages = SpooledPages(live()) if sys.argv[1] == "spool" else [p.compact() for p in live()]
status = open("/proc/self/status").read()
print(int(re.search(r"VmHWM:\\s+(\\d+) kB", status).group(1)) // 1024)
"""


@pytest.mark.slow  # two child processes building 200 MB of pages
def test_a_spooled_crawl_is_not_held_in_memory():
    def peak(kind: str) -> int:
        out = subprocess.run([sys.executable, "-c", MEMORY, kind], capture_output=True,
                             text=True, check=True)  # fmt: skip
        return int(out.stdout.split()[-1])

    held, spooled = peak("list"), peak("spool")
    assert held - spooled > 150  # MiB: the 200 MB of pages are on disk, not in memory


KILLED = """
import os, signal
from datetime import datetime
from connectors.kit.page import Page
from flows.pipeline import SpooledPages
pages = SpooledPages([Page("azure", "retail_prices", datetime(2026, 11, 25), {"page": 0},
                           body={"Items": []})])
os.kill(os.getpid(), signal.SIGKILL)  # killed while the pages wait for their landing
"""


def test_a_spool_left_by_a_killed_refresh_goes_with_the_next_spool(tmp_path, monkeypatch):
    spools = tmp_path / "tmp"
    spools.mkdir()
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "TMPDIR": str(spools)}
    done = subprocess.run([sys.executable, "-c", KILLED], cwd=root, env=env, timeout=120)
    assert done.returncode == -signal.SIGKILL
    (left,) = spools.iterdir()
    assert [p.name for p in left.iterdir()] == ["0.json"]
    # not this code's (no process id in the name), and a living process's: both kept
    foreign = spools / "gpu-pricing-fetch-x1y2z3"
    living = spools / f"gpu-pricing-fetch-{os.getpid()}-kept"
    foreign.mkdir()
    living.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(spools))
    spooled = SpooledPages(live(tmp_path))
    assert not left.exists() and foreign.exists() and living.exists()
    assert Path(spooled._folder.name).parent == spools
