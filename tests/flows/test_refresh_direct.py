"""`gpu-pricing refresh` without a Prefect API: the same refresh code runs without an
orchestrator (no temporary Prefect server to start), with the fetch retry policy of the
Prefect task, per-provider durations in the summary, and live progress on a terminal."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings
from typer.testing import CliRunner

from connectors.errors import SourceUnavailable, UnexpectedResponse
from connectors.kit.page import FetchContext
from flows import direct
from flows import refresh as refresh_mod
from gpu_pricing.cli import app

BIN = Path(sys.executable).parent


@pytest.fixture
def no_prefect_api(monkeypatch):
    """No Prefect API configured, and starting Prefect's temporary server is an error."""
    from prefect.server.api.server import SubprocessASGIServer

    def refuse(*args, **kwargs):
        raise AssertionError("a temporary Prefect server was started")

    monkeypatch.setattr(SubprocessASGIServer, "start", refuse)
    with temporary_settings(restore_defaults={PREFECT_API_URL}):
        yield


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_refresh_runs_directly_when_no_prefect_api_is_configured(no_prefect_api, tmp_path):
    path = tmp_path / "w.duckdb"
    cpu_before = time.process_time()
    result = CliRunner().invoke(
        app, ["refresh", "--snapshot", "demo", "--json", "--warehouse", str(path)]
    )
    cpu_spent = time.process_time() - cpu_before
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""  # no terminal: no progress display, no logs
    doc = json.loads(result.stdout)
    by_name = {p["provider"]: p for p in doc["providers"]}
    assert by_name["azure"]["status"] == "ok" and by_name["azure"]["fetched"] == 17
    # per-provider durations, each stage measured
    for p in doc["providers"]:
        assert {"fetch_seconds", "land_seconds", "stage_seconds"} <= p.keys()
        assert p["stage_seconds"] > 0 and p["land_seconds"] >= 0 and p["fetch_seconds"] >= 0
    assert {"land", "parse_stage", "history", "assertions", "publish"} <= doc["timings"].keys()
    # and the process's CPU seconds in each stage, the same stages: together within the
    # CPU the command took (each rounded to the ms), the parse's not nothing
    assert doc["cpu_timings"].keys() == doc["timings"].keys()
    assert all(v >= 0 for v in doc["cpu_timings"].values())
    assert doc["cpu_timings"]["parse_stage"] > 0
    assert sum(doc["cpu_timings"].values()) <= cpu_spent + 0.01


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_the_printed_summary_has_per_connector_durations(no_prefect_api, tmp_path):
    result = CliRunner().invoke(
        app,
        ["refresh", "--snapshot", "demo", "--providers", "aws", "--warehouse", str(tmp_path / "w")],
    )
    assert result.exit_code == 0, result.stderr
    header = next(line for line in result.stdout.splitlines() if line.startswith("| connector"))
    assert header.endswith("| fetch s | land s | parse/stage s |")
    [aws] = [line for line in result.stdout.splitlines() if line.startswith("| aws |")]
    fetch_s, land_s, stage_s = (float(c) for c in aws.strip("| ").split(" | ")[-3:])
    assert fetch_s >= 0 and land_s >= 0 and stage_s > 0  # parsing AWS takes ~0.4 s


def test_the_direct_fetch_retries_like_the_prefect_task(monkeypatch):
    import logging

    calls, sleeps = [], []

    def flaky(provider, snapshot, ctx):
        calls.append(provider)
        if len(calls) < 3:
            raise SourceUnavailable(provider, "prices", "HTTP 503")
        return []

    monkeypatch.setattr(direct.pipeline, "fetch_pages", flaky)
    log = logging.getLogger("test")
    got = direct.fetch_with_retries("azure", None, FetchContext(), log, sleep=sleeps.append)
    assert got.pages == [] and len(calls) == 3
    # Prefect's exponential backoff (10 s, 20 s) with its jitter (clamped to +-50%)
    assert direct.FETCH_RETRY_DELAYS == [10, 20]
    assert 0 < sleeps[0] <= 15 and 0 < sleeps[1] <= 30
    # the Prefect task declares the very same policy
    task = refresh_mod.fetch_provider
    assert (task.retries, task.retry_delay_seconds, task.retry_jitter_factor) == (
        2,
        [10, 20],
        0.5,
    )

    def broken(provider, snapshot, ctx):
        calls.append(provider)
        raise UnexpectedResponse(provider, "prices", "schema drift")

    calls.clear()
    monkeypatch.setattr(direct.pipeline, "fetch_pages", broken)
    with pytest.raises(UnexpectedResponse):
        direct.fetch_with_retries("azure", None, FetchContext(), log, sleep=sleeps.append)
    assert len(calls) == 1  # not retryable: no second attempt


@pytest.mark.slow  # a refresh in a child process on a terminal
def test_progress_shows_on_a_terminal_and_json_stays_alone_on_stdout(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), COLUMNS="120")
    leader, follower = pty.openpty()
    out = tmp_path / "stdout.json"
    with out.open("wb") as stdout:
        proc = subprocess.Popen(
            [
                str(BIN / "gpu-pricing"),
                "refresh",
                "--snapshot",
                "demo",
                "--json",
                "--warehouse",
                str(tmp_path / "w.duckdb"),
            ],
            env=env,
            stdout=stdout,
            stderr=follower,
        )
        os.close(follower)
        shown = b""
        while True:  # read the terminal while the refresh writes to it
            try:
                chunk = os.read(leader, 1 << 16)
            except OSError:  # the other end is closed: everything is read
                break
            if not chunk:
                break
            shown += chunk
        os.close(leader)
        returncode = proc.wait(timeout=180)
    assert returncode == 0, shown.decode(errors="replace")
    doc = json.loads(out.read_text())  # one JSON document, nothing else
    terminal = shown.decode(errors="replace")
    for p in doc["providers"]:
        assert p["provider"] in terminal
    assert "fetch" in terminal and "parse/stage" in terminal and "publish" in terminal


@pytest.mark.slow
def test_a_direct_refresh_and_a_read_command_do_not_import_prefect_httpx_or_arrow_compute(
    tmp_path,
):
    """Importing Prefect costs about a second: more than a small refresh. Without a Prefect
    API neither `refresh` nor a read command loads it. Nor httpx (with the click, rich and
    pygments its command-line module pulls in, ~0.17 s): a snapshot replay fetches
    nothing, so only a live fetch loads it (connectors.kit.http). Nor pyarrow.compute
    (~0.2 s, more beside the landing's threads): the pages reach Polars through the Arrow
    C interface (warehouse.raw.with_payloads)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    path = tmp_path / "w.duckdb"
    code = (
        "import sys\n"
        "from gpu_pricing.cli import main\n"
        "sys.argv = ['gpu-pricing', *sys.argv[1:]]\n"
        "try:\n    main()\nexcept SystemExit as e:\n    assert not e.code, e.code\n"
        "loaded = [m for m in ('prefect', 'httpx', 'pyarrow.compute') if m in sys.modules]\n"
        "sys.stderr.write(f'LOADED {loaded}' if loaded else 'neither loaded')\n"
    )
    for args in (["refresh", "--snapshot", "demo"], ["rates"]):
        done = subprocess.run(
            [sys.executable, "-c", code, *args, "--warehouse", str(path)],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=180,
        )
        assert done.returncode == 0, done.stderr
        assert done.stderr.endswith("neither loaded"), (args, done.stderr[-500:])


def test_the_alerts_are_checked_on_the_refresh_s_own_build(no_prefect_api, tmp_path, monkeypatch):
    """One build per refresh: the alerts read the marts the refresh has just built (no copy
    of the warehouse, no view rebuild), and their events are published with it."""
    from flows import direct as direct_mod
    from warehouse import db

    builds = []
    real = db.building

    def counted(path):
        builds.append(path)
        return real(path)

    monkeypatch.setattr(db, "building", counted)
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(
        '[[rules]]\nname = "any-h100"\nkind = "price_above"\ngpu = "H100"\n'
        'pricing_model = "on_demand"\nusd_per_gpu_hour = 0.01\n'
    )
    path = tmp_path / "w.duckdb"
    summary = direct_mod.refresh_direct(
        warehouse=str(path), snapshot="demo", providers=["aws"], config=str(cfg)
    )
    assert summary.exit_code == 0 and len(builds) == 1
    assert "alerts" in summary.timings
    con = db.connect_readonly(path)
    try:
        states = dict(db.run(con, "SELECT rule, state FROM alert_rule_states"))
    finally:
        con.close()
    assert states["rate:any-h100"] == "ALARM"  # fired on this refresh's marts, published


def test_a_failing_alerts_check_leaves_the_refresh_published(no_prefect_api, tmp_path, monkeypatch):
    from flows import direct as direct_mod
    from services import alerts
    from warehouse import db

    def broken(con, *args, **kwargs):
        db.run(con, "DELETE FROM _runs")  # a write the rollback must undo
        raise RuntimeError("rules unreadable")

    monkeypatch.setattr(alerts, "check_built", broken)
    path = tmp_path / "w.duckdb"
    summary = direct_mod.refresh_direct(warehouse=str(path), snapshot="demo", providers=["aws"])
    assert summary.exit_code == 0
    con = db.connect_readonly(path)
    try:
        assert db.run(con, "SELECT status FROM _runs") == [("ok",)]
    finally:
        con.close()
