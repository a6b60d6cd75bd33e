"""Stopping serve removes every scheduled run of its deployment, also those the server's
scheduler inserts just after the pause (flows.refresh._unschedule): the scheduler may have
read the deployment as active before the pause and insert its runs a moment later, as seen
on a loaded machine 0.4 s after SIGTERM. A client stands in for the server here; the real
server is in tests/flows/test_serve_stop.py (slow)."""

from __future__ import annotations

import itertools
import time
import uuid
from contextlib import contextmanager
from types import SimpleNamespace

import prefect.client.orchestration as orchestration
import pytest

from flows import refresh


class Server:
    """Scheduled runs of one deployment; after the pause, `late` more are inserted once,
    `after_s` seconds later, as the scheduler's iteration in flight would."""

    def __init__(self, scheduled: int, late: int, after_s: float):
        self.ids = itertools.count()
        self.runs = {next(self.ids) for _ in range(scheduled)}
        self.late, self.after_s, self.paused_at = late, after_s, None

    def read_flow_runs(self, **_):
        if (
            self.paused_at is not None
            and self.late
            and time.monotonic() - self.paused_at >= self.after_s
        ):
            self.runs |= {next(self.ids) for _ in range(self.late)}
            self.late = 0
        return [SimpleNamespace(id=i) for i in sorted(self.runs)]

    def pause_deployment(self, _id):
        self.paused_at = time.monotonic()

    def delete_flow_run(self, run_id):
        self.runs.discard(run_id)


# the settling time shortened, the late runs coming before it ends
@pytest.mark.parametrize("after_s", [0.0, 0.1, 0.25])
def test_runs_the_scheduler_inserts_just_after_the_pause_are_removed_too(monkeypatch, after_s):
    server = Server(scheduled=3, late=3, after_s=after_s)

    @contextmanager
    def client(sync_client):
        yield server

    monkeypatch.setattr(orchestration, "get_client", client)
    monkeypatch.setattr(refresh, "_SETTLE_S", 0.3)
    assert refresh._unschedule(uuid.uuid4()) == 3
    assert server.late == 0 and server.runs == set()
