"""Shared fixtures. No network: every client under test talks to a local server."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pytest

# Prefect's temporary server takes 10-25 s to start on a 2-core machine: start it at most
# once per session (fixture below), and never phone home.
os.environ.setdefault("PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS", "90")
os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("PREFECT_LOGGING_LEVEL", "WARNING")
# The command line's tables fit the terminal ($COLUMNS, else the terminal, else 120 columns):
# the width a run without a terminal gets, pinned, so that an xdist worker (whose stdout
# may report another size) prints what a serial run prints.
os.environ["COLUMNS"] = "120"
# Make sure no real credentials on a developer machine leak into a test run.
for var in ("AZURE_SUBSCRIPTION_ID", "AWS_PROFILE", "GOOGLE_API_KEY", "LAMBDA_API_KEY", "RUNPOD_API_KEY"):
    os.environ.pop(var, None)

FIXTURES = Path(__file__).parent / "fixtures"

# A test that uses one of these fixtures is `slow` by that alone (see CONTRIBUTING.md,
# "Running the tests"): each starts a server or a browser the fast loop does without.
SLOW_FIXTURES = {
    "prefect_harness": "a temporary Prefect API (a server process) for a flow run",
    "s3_endpoint": "moto's S3 server",
    "chromium": "a real browser",
}


@pytest.hookimpl(tryfirst=True)  # before `-m "not slow"` deselects
def pytest_collection_modifyitems(config, items):
    if "live" not in config.option.markexpr:  # real cloud APIs: only when -m asks for them
        live = [item for item in items if item.get_closest_marker("live")]
        if live:
            config.hook.pytest_deselected(items=live)
            items[:] = [item for item in items if not item.get_closest_marker("live")]
    for item in items:
        if SLOW_FIXTURES.keys() & set(item.fixturenames):
            item.add_marker(pytest.mark.slow)


# The order xdist's workers take the test files in: longest first (tests/_schedule.py).
_durations = None


def pytest_configure(config):
    # one bytecode cache for the run's processes (tests/_bytecode.py)
    from tests import _bytecode

    _bytecode.share()


def pytest_unconfigure(config):
    from tests import _bytecode

    _bytecode.remove()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config):
    """`-n auto`: one worker more than the cores. Part of the suite waits without using a
    core (a Prefect server starting, a scheduled run's minute, moto answering); the extra
    worker runs tests meanwhile (measured on a quiet 2-core machine, whole suite: 6 min 8 s
    with two workers, 5 min 17 s with three)."""
    return (os.cpu_count() or 1) + 1


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadfile":
        return None
    from tests._schedule import LongestFileFirst

    return LongestFileFirst(config, log)


def pytest_runtest_logreport(report):
    global _durations
    if os.environ.get("PYTEST_XDIST_WORKER"):  # the controlling process records
        return
    if _durations is None:
        from tests._schedule import Durations

        _durations = Durations()
    _durations.add(report)


def pytest_sessionfinish(session):
    if _durations is not None and not os.environ.get("PYTEST_XDIST_WORKER"):
        _durations.save(session.config)


@pytest.fixture(scope="session")
def prefect_harness():
    """One temporary Prefect API for the whole session (use it only where a flow runs)."""
    from prefect.events.worker import EventsWorker
    from prefect.logging.handlers import APILogWorker
    from prefect.testing.utilities import prefect_test_harness

    with prefect_test_harness(server_startup_timeout=90):
        yield
        # the harness drains Prefect's log and event workers with no time limit: one that
        # cannot deliver (an event sent after a test pointed the API elsewhere) hung the end
        # of a worker's session for 300 s; drained here first, bounded (a drained worker is
        # gone, so the harness's own drain finds nothing left to wait for)
        for worker in (APILogWorker, EventsWorker):
            worker.drain_all(timeout=30)


@pytest.fixture(scope="session")
def demo_pages():
    """Every registered provider's pages from the bundled demo snapshot."""
    from connectors import registry
    from connectors.kit.page import FetchContext
    from flows import pipeline

    return {name: pipeline.fetch_pages(name, "demo", FetchContext()) for name in registry.PROVIDERS}


@contextmanager
def built_once(tmp_path_factory, name: str):
    """A directory under the run's temporary root, built by whichever test process gets
    there first (pytest-xdist's workers share the root; each waits on a file lock); yields
    (directory, built already?)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # pytest-of-<user>/pytest-<n>/popen-gw0 -> the run's directory
    folder = root / name
    with (root / f"{name}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            done = folder / ".built"
            built = done.exists()
            folder.mkdir(exist_ok=True)
            yield folder, built
            done.touch()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def shared_warehouse(tmp_path_factory, name: str, pages: Callable[[], dict], **refresh_kwargs):
    """A warehouse refreshed once per run from `pages()` (read only by the worker that
    builds it) and shared by every test (and every
    xdist worker): read-only use. A test that writes takes a copy (`shutil.copyfile` or
    `copy_warehouse` into its tmp_path); the session fails if the file changed."""
    from tests._warehouse import refresh

    with built_once(tmp_path_factory, name) as (folder, built):
        path = folder / "gpu_pricing.duckdb"
        if not built:
            summary = refresh(path, pages(), **refresh_kwargs)
            assert summary.exit_code == 0, summary  # every test reads a clean refresh
            (folder / "sha256").write_text(digest(path))
    yield path
    assert digest(path) == (folder / "sha256").read_text(), (
        f"a test wrote to the shared {name} warehouse {path}: copy it first"
    )


@pytest.fixture(scope="session")
def demo_warehouse(tmp_path_factory, demo_pages) -> Path:
    """The demo snapshot refreshed once per run (`shared_warehouse`)."""
    yield from shared_warehouse(tmp_path_factory, "demo", lambda: demo_pages, source="demo")


@pytest.fixture(scope="session")
def azure_warehouse(tmp_path_factory) -> Path:
    """The demo snapshot's Azure pages refreshed once per run into an empty warehouse (what
    `refresh(path, {"azure": pages})` gives), shared like `demo_warehouse`."""
    from tests._warehouse import snapshot_pages

    yield from shared_warehouse(
        tmp_path_factory, "azure", lambda: snapshot_pages("demo", "azure")
    )


@pytest.fixture(scope="session")
def demo_counted_warehouse(tmp_path_factory, demo_pages) -> Path:
    """The demo snapshot with every price counted: its pages without their provenance
    statements (connectors/kit/provenance.py), as if every invented price were a provider's
    own. For the tests of arithmetic over the whole demo (spot and reserved break-evens,
    savings plans, plans on spot offers) that the demo has only illustrative prices for;
    what a user's demo ranks is `demo_warehouse`. Shared like it."""
    from dataclasses import replace

    def pages() -> dict:
        return {
            name: [replace(p, provenance=None) if hasattr(p, "provenance") else p for p in listed]
            for name, listed in demo_pages.items()
        }

    yield from shared_warehouse(tmp_path_factory, "demo-counted", pages, source="demo")


@pytest.fixture(scope="module")
def con_counted(demo_counted_warehouse):
    connection = duckdb.connect(str(demo_counted_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="module")
def con(demo_warehouse):
    connection = duckdb.connect(str(demo_warehouse), read_only=True)
    yield connection
    connection.close()


@pytest.fixture(scope="session")
def sheets_warehouse(tmp_path_factory, demo_pages) -> Path:
    """The price sheets alone (where the illustrative FluidStack row is the cheapest H100
    on offer)."""
    from tests._warehouse import refresh

    path = tmp_path_factory.mktemp("sheets") / "gpu_pricing.duckdb"
    refresh(path, {"sheets": demo_pages["sheets"]}, source="demo")
    return path


# Edited copies of the demo snapshot (the alert views and alert delivery tests).
H100_SKU = "Standard_ND96isr_H100_v5"


@pytest.fixture
def azure_snapshot(tmp_path) -> Callable[..., Path]:
    """make(name, h100_factor=1.0, fetched_at=None, keep_items=None): a copy of the demo
    snapshot (real shape) with every ND96isr H100 v5 price scaled by `h100_factor`, the
    Azure pages' fetched_at replaced, and only the first `keep_items` items of each page.
    The edited Azure pages drop their provenance statement: their prices count, as a
    provider's own would (the tests watch a rule on them)."""
    from connectors.kit.snapshot import DEMO_DIR

    def make(
        name: str,
        h100_factor: float = 1.0,
        fetched_at: str | None = None,
        keep_items: int | None = None,
    ) -> Path:
        root = tmp_path / name
        shutil.copytree(DEMO_DIR, root)
        for page in (root / "azure" / "retail_prices").glob("*.json"):
            doc = json.loads(page.read_text())
            items = doc["body"]["Items"]
            for item in items:
                if item["armSkuName"] == H100_SKU:
                    price = round(item["retailPrice"] * h100_factor, 4)
                    item["retailPrice"] = item["unitPrice"] = price
            if keep_items is not None:
                doc["body"]["Items"] = items[:keep_items]
                doc["body"]["Count"] = len(doc["body"]["Items"])
            if fetched_at:
                doc["fetched_at"] = fetched_at
            doc.pop("provenance", None)
            page.write_text(json.dumps(doc, indent=1))
        return root

    return make
