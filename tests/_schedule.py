"""Which test file an xdist worker takes next: the longest first.

pytest-xdist's `--dist loadfile` hands out files in order of their number of tests, so the
files that take longest with the fewest tests (a Prefect server, moto, a browser: a few
tests each) came last and ran alone on one core while the other waited. Here the files go
out longest first (the greedy longest-processing-time rule), so both workers finish
together. How long a test takes comes from the last runs on this machine (pytest's cache,
`.pytest_cache`), else from `tests/durations.json` (the seconds each file took in a measured
run), else a file counts its number of tests times a typical test's time.
"""

from __future__ import annotations

import json
from collections import OrderedDict
from pathlib import Path

from xdist.scheduler import LoadFileScheduling

CACHE_KEY = "gpu-pricing/test-seconds"
SEED = Path(__file__).with_name("durations.json")
TYPICAL_TEST_S = 0.2  # a test neither the cache nor the seed knows


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def known_seconds(config) -> tuple[dict[str, float], dict[str, float]]:
    """(seconds per test id from the cache, seconds per file from the seed)."""
    cache = getattr(config, "cache", None)
    per_test = cache.get(CACHE_KEY, {}) if cache is not None else {}
    per_file = json.loads(SEED.read_text()) if SEED.exists() else {}
    return per_test, per_file


def file_seconds(path: str, nodeids, per_test: dict, per_file: dict) -> float:
    """How long the tests `nodeids` (of file `path`, or of a unit of several files) are
    expected to take."""
    nodeids = list(nodeids)
    timed = [per_test[n] for n in nodeids if n in per_test]
    cost = sum(timed) + TYPICAL_TEST_S * (len(nodeids) - len(timed))
    if len(timed) < len(nodeids):  # some never timed here (e.g. the slow ones after a fast loop)
        files = {file_of(n) for n in nodeids}
        cost = max(cost, sum(float(per_file.get(f, 0)) for f in files))
    return cost


def longest_first(workqueue: dict, per_test: dict, per_file: dict) -> OrderedDict:
    """xdist's work queue (file -> its tests) with the longest files first, the order of
    equally long ones kept."""
    cost = {path: file_seconds(path, unit, per_test, per_file) for path, unit in workqueue.items()}
    return OrderedDict(sorted(workqueue.items(), key=lambda u: -cost[u[0]]))


# Files that ask for one of these session fixtures go to the same worker, as one unit, so
# the fixture (a temporary Prefect API: a server process) starts once per run, not per worker.
SHARED_SESSION_FIXTURES = ("prefect_harness",)


class LongestFileFirst(LoadFileScheduling):
    """`--dist loadfile` (a file's tests on one worker, in their order), the files handed
    out longest first; the files that share an expensive session fixture go together."""

    def __init__(self, config, log=None):
        super().__init__(config, log)
        self._ordered = False
        self._scopes: dict[str, str] = {}

    def _split_scope(self, nodeid: str) -> str:
        path = file_of(nodeid)
        if path not in self._scopes:
            try:
                text = (Path(self.config.rootpath) / path).read_text()
            except (OSError, UnicodeDecodeError):
                text = ""
            shared = [f for f in SHARED_SESSION_FIXTURES if f in text]
            self._scopes[path] = shared[0] if shared else path
        return self._scopes[path]

    def _assign_work_unit(self, node) -> None:
        if not self._ordered:  # the first assignment: the queue holds every file
            self.workqueue = longest_first(self.workqueue, *known_seconds(self.config))
            self._ordered = True
        super()._assign_work_unit(node)


class Durations:
    """Records each test's time (setup + call + teardown) in the controlling process and
    keeps it in pytest's cache for the next run's order."""

    def __init__(self):
        self.seconds: dict[str, float] = {}

    def add(self, report) -> None:
        self.seconds[report.nodeid] = self.seconds.get(report.nodeid, 0.0) + report.duration

    def save(self, config) -> None:
        cache = getattr(config, "cache", None)
        if cache is None or not self.seconds:
            return
        known = cache.get(CACHE_KEY, {})
        known.update({n: round(s, 3) for n, s in self.seconds.items()})
        cache.set(CACHE_KEY, known)
