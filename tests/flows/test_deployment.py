"""The nightly deployment against a real Prefect server on loopback: prefect.yaml
registers it on a work pool; `gpu-pricing serve` registers it with the config's schedule,
a triggered run completes against the demo snapshot, and a deployment with an
every-minute cron gets a run from the server's scheduler by itself, which completes.

Slow (a server start is 10-25 s on a 2-core machine, a flow run ~15 s, the scheduled run
waits up to a minute for its cron) but it runs in CI. The every-minute deployment is served
from the module's first test on, so its wait for the next minute overlaps the other tests;
the server's scheduler goes round every few seconds instead of every minute (a setting),
so the last test need not wait a minute for it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from services import config, notify
from tests._processes import free_port, stop
from warehouse import db

pytestmark = pytest.mark.slow

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SCHEDULER_LOOP_S = 3
SERVED_CONFIG = """
[providers.azure]

[schedule]
cron = "30 3 * * *"
timezone = "Europe/Paris"
"""


class Server:
    def __init__(self, root: Path):
        port = free_port()
        self.url = f"http://127.0.0.1:{port}/api"
        self.env = {
            k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))
        }
        self.env.update(
            PREFECT_HOME=str(root / "prefect-home"),
            PREFECT_API_URL=self.url,
            PREFECT_SERVER_ANALYTICS_ENABLED="false",
            PREFECT_SERVER_UI_ENABLED="false",
            PREFECT_SERVER_EPHEMERAL_STARTUP_TIMEOUT_SECONDS="90",
            PREFECT_RUNNER_POLL_FREQUENCY="2",
            PREFECT_LOGGING_LEVEL="WARNING",
            # the scheduler service's loop (60 s by default): every few seconds here
            PREFECT_SERVER_SERVICES_SCHEDULER_LOOP_SECONDS=str(SCHEDULER_LOOP_S),
        )
        self.log = root / "server.log"
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [
                str(BIN / "prefect"),
                "server",
                "start",
                "--host",
                "127.0.0.1",
                "--port",
                str(port),
                "--no-ui",
                "--analytics-off",
            ],
            env=self.env,
            cwd=root,
            stdout=self.log.open("w"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait_healthy(self, timeout: float = 120) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                pytest.fail(f"prefect server exited: {self.log.read_text()[-2000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        pytest.fail(f"prefect server not healthy after {timeout} s: {self.log.read_text()[-2000:]}")

    def cli(self, *args: str, cwd: Path = REPO, timeout: float = 120) -> str:
        done = subprocess.run(
            [str(BIN / "prefect"), "--no-prompt", *args],
            env=self.env,
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return done.stdout

    def post(self, path: str, body: dict) -> list | dict:
        response = httpx.post(f"{self.url}{path}", json=body, timeout=10)
        response.raise_for_status()
        return response.json()

    def deployment(self, name: str) -> dict | None:
        found = self.post("/deployments/filter", {"deployments": {"name": {"any_": [name]}}})
        return found[0] if found else None


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    srv = Server(tmp_path_factory.mktemp("prefect"))
    try:
        srv.wait_healthy()
        yield srv
    finally:
        stop(srv.proc)


def serve_cli(env: dict, cwd: Path, log: Path, *args: str) -> subprocess.Popen:
    """`gpu-pricing serve ARGS` in its own process group, output to `log`."""
    return subprocess.Popen(
        [str(BIN / "gpu-pricing"), "serve", *args],
        env=env,
        cwd=cwd,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def wait_registered(server: Server, name: str, serving: subprocess.Popen, log: Path) -> dict:
    deadline = time.monotonic() + 90
    while (found := server.deployment(name)) is None:
        assert serving.poll() is None, log.read_text()
        assert time.monotonic() < deadline, f"not registered: {log.read_text()}"
        time.sleep(1)
    return found


def schedule_of(deployment: dict) -> tuple[str, str, bool]:
    [s] = deployment["schedules"]
    return s["schedule"]["cron"], s["schedule"]["timezone"], s["active"]


EVERY_MINUTE = """
[providers.azure]

[schedule]
cron = "* * * * *"
timezone = "UTC"
"""
FINAL = ("COMPLETED", "FAILED", "CRASHED", "CANCELLED")


@pytest.fixture(scope="module")
def every_minute(server, tmp_path_factory):
    """`gpu-pricing serve` with an every-minute cron, from the module's first test on (its
    wait for the next minute overlaps the tests in between); yields (deployment, process,
    log, warehouse)."""
    root = tmp_path_factory.mktemp("every-minute")
    cfg = root / "gpu-pricing.toml"
    cfg.write_text(EVERY_MINUTE)
    warehouse = root / "w.duckdb"
    log = root / "serve.log"
    # as a user runs it: Prefect's log level left to `gpu-pricing` (run logs at INFO)
    env = {k: v for k, v in server.env.items() if k != "PREFECT_LOGGING_LEVEL"}
    serving = serve_cli(
        env,
        root,
        log,
        *("--config", str(cfg), "--warehouse", str(warehouse), "--snapshot", "demo"),
        *("--name", "every-minute"),
    )
    try:
        yield wait_registered(server, "every-minute", serving, log), serving, log, warehouse
    finally:
        stop(serving)


def test_serve_registers_the_every_minute_cron_of_its_config(every_minute):
    """First in the module: the deployment the scheduler test below waits on."""
    deployment, *_ = every_minute
    assert schedule_of(deployment) == ("* * * * *", "UTC", True)


def test_prefect_yaml_declares_the_nightly_deployment_on_a_work_pool(server):
    server.cli("work-pool", "create", "gpu-pricing", "--type", "process")
    server.cli("deploy", "--all")
    nightly = server.deployment("nightly")
    defaults = config.Config().schedule
    assert (
        schedule_of(nightly)
        == (defaults.cron, defaults.timezone, True)
        == ("0 2 * * *", "UTC", True)
    )
    assert nightly["global_concurrency_limit"]["limit"] == 1
    assert nightly["entrypoint"] == "flows/refresh.py:refresh"
    assert nightly["work_pool_name"] == "gpu-pricing"
    # the checkout is found on the worker at run time, not baked in at deploy time
    assert nightly["pull_steps"] == [
        {
            "prefect.deployments.steps.set_working_directory": {
                "directory": "{{ $GPU_PRICING_HOME }}"
            }
        }
    ]


def test_serve_uses_the_config_schedule_and_a_triggered_run_completes(server, tmp_path):
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(SERVED_CONFIG)
    warehouse = tmp_path / "w.duckdb"
    log = tmp_path / "serve.log"
    serving = serve_cli(
        server.env,
        tmp_path,
        log,
        *("--config", str(cfg), "--warehouse", str(warehouse), "--snapshot", "demo"),
        *("--name", "nightly-served"),
    )
    try:
        served = wait_registered(server, "nightly-served", serving, log)
        assert schedule_of(served) == ("30 3 * * *", "Europe/Paris", True)
        assert served["global_concurrency_limit"]["limit"] == 1
        assert served["parameters"] == {
            "warehouse": str(warehouse),
            "snapshot": "demo",
            "config": str(cfg),
        }

        out = server.cli("deployment", "run", "gpu-pricing-refresh/nightly-served")
        run_id = re.search(r"UUID: ([0-9a-f-]{36})", out).group(1)
        deadline = time.monotonic() + 180
        while True:
            state = httpx.get(f"{server.url}/flow_runs/{run_id}", timeout=10).json()["state"]
            if state["type"] in ("COMPLETED", "FAILED", "CRASHED", "CANCELLED"):
                break
            assert time.monotonic() < deadline, f"run still {state['type']}: {log.read_text()}"
            time.sleep(2)
        assert state["type"] == "COMPLETED", f"{state}\n{log.read_text()}"
    finally:
        stop(serving)

    tasks = server.post("/task_runs/filter", {"flow_runs": {"id": {"any_": [run_id]}}})
    assert {t["name"]: t["state"]["type"] for t in tasks} == {
        "fetch-azure": "COMPLETED",
        "load-and-publish": "COMPLETED",  # the alerts are checked inside its build
    }
    con = db.connect_readonly(warehouse)
    try:
        assert db.run(con, "SELECT source, providers, status FROM _runs") == [
            ("demo", "azure", "ok")
        ]
        assert db.run(con, "SELECT count(*) > 100 FROM mart_gpu_offers_current")[0][0]
    finally:
        con.close()


def test_a_target_url_can_live_in_a_prefect_secret_block(server):
    from prefect.blocks.system import Secret
    from prefect.settings import PREFECT_API_URL, temporary_settings

    url = "json://127.0.0.1:9/hook/from-a-block"
    with temporary_settings(updates={PREFECT_API_URL: server.url}):
        Secret(value=url).save("gpu-pricing-test-hook", overwrite=True)
        assert notify.resolve_url(config.Target(name="t", secret_block="gpu-pricing-test-hook")) == url
        with pytest.raises(notify.DeliveryError, match="'no-such-block' could not be read") as info:
            notify.resolve_url(config.Target(name="t", secret_block="no-such-block"))
    assert url not in str(info.value)


@pytest.mark.timeout(300)  # the bounded wait for the run (180 s) and its logs (60 s)
def test_the_scheduler_creates_a_run_by_itself_and_it_completes(server, every_minute):
    """No run is triggered here: the server's scheduler must create one from the cron
    (it did not with SQLAlchemy 2.1, so nothing ever ran at night)."""
    deployment, serving, log, warehouse = every_minute
    try:
        # the cron's next minute after registration (<= 60 s, mostly spent by the tests
        # above), the runner's poll (2 s), the run (~15-30 s)
        deadline = time.monotonic() + 180
        while True:
            runs = server.post(
                "/flow_runs/filter",
                {"flow_runs": {"deployment_id": {"any_": [deployment["id"]]}}},
            )
            done = [r for r in runs if r["state"] and r["state"]["type"] in FINAL]
            if done:
                break
            assert serving.poll() is None, log.read_text()
            assert time.monotonic() < deadline, (
                f"no finished run after 180 s; runs: {[(r['name'], r['state']) for r in runs]}\n"
                f"server log:\n{server.log.read_text()[-3000:]}"
            )
            time.sleep(2)
        # the first minute's run (a later one, when the module took that long, finds the
        # pages unchanged)
        run = min(done, key=lambda r: r["expected_start_time"])
        assert run["auto_scheduled"] is True  # made by the scheduler, not by hand
        assert run["state"]["type"] == "COMPLETED", f"{run['state']}\n{log.read_text()}"
        # the run's own log reached Prefect: per-provider counts and durations. The serving
        # process sends its logs in batches, so it keeps running until they have arrived
        deadline = time.monotonic() + 60
        while True:
            logs = server.post("/logs/filter", {"logs": {"flow_run_id": {"any_": [run["id"]]}}})
            messages = [entry["message"] for entry in logs]
            if any(m.startswith("azure: ok") for m in messages) or time.monotonic() > deadline:
                break
            time.sleep(1)
    finally:
        stop(serving)
    # a snapshot's pages are read as they are landed, so the fetch line counts none; the
    # summary line counts the 17 pages landed
    assert any(m.startswith("azure: fetched snapshot, read as landed in ") for m in messages), messages
    assert any(m.startswith("azure: ok, 17 pages (0 unchanged)") for m in messages), messages
    con = db.connect_readonly(warehouse)  # the run published the warehouse (a later
    try:  # minute's run, when the module took that long, publishes the same)
        runs_rows = db.run(con, "SELECT source, providers, status FROM _runs")
    finally:
        con.close()
    assert runs_rows and set(runs_rows) == {("demo", "azure", "ok")}, runs_rows


def test_the_server_scheduler_logs_no_errors(server):
    """Runs last in this module: by then deployments with schedules exist, and the
    scheduler service (one loop every SCHEDULER_LOOP_S) has gone round several times."""
    time.sleep(max(0.0, server.started + 30 + 3 * SCHEDULER_LOOP_S - time.monotonic()))
    text = server.log.read_text()
    assert "InvalidRequestError" not in text, text[-3000:]
    # a failing scheduler loop logs its traceback through services/scheduler.py
    assert not re.search(r"services/scheduler\.py|schedule_deployments", text), text[-3000:]
