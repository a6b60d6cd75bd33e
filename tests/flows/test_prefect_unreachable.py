"""An unreachable Prefect API (PREFECT_API_URL at a stopped server): `refresh` runs directly
with one warning line naming the URL, `serve` stops with one line naming it (exit 2), and
the reachability probe counts any HTTP answer (an API that wants a key is there)."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import pytest
from prefect.settings import PREFECT_API_URL, temporary_settings
from typer.testing import CliRunner

from flows.direct import prefect_api_unreachable
from gpu_pricing.cli import app
from tests._processes import free_port


def closed_port_url() -> str:
    """An API URL on a loopback port nothing listens on."""
    return f"http://127.0.0.1:{free_port()}/api"


@pytest.fixture
def dead_api():
    """PREFECT_API_URL at a stopped server."""
    url = closed_port_url()
    with temporary_settings(updates={PREFECT_API_URL: url}):
        yield url


@pytest.mark.slow  # a refresh (~8 s)
def test_refresh_runs_directly_with_one_warning_naming_the_url(dead_api, tmp_path, monkeypatch):
    from prefect.server.api.server import SubprocessASGIServer

    def refuse(*args, **kwargs):
        raise AssertionError("a temporary Prefect server was started")

    monkeypatch.setattr(SubprocessASGIServer, "start", refuse)
    path = tmp_path / "w.duckdb"
    result = CliRunner().invoke(
        app,
        ["refresh", "--snapshot", "demo", "--providers", "aws,sheets", "--json", "--warehouse", str(path)],
    )
    assert result.exit_code == 0, result.stderr
    [line] = result.stderr.splitlines()
    assert line.startswith(f"gpu-pricing: warning: no Prefect API answers at {dead_api} (")
    assert "refreshing directly" in line
    doc = json.loads(result.stdout)
    assert {p["provider"]: p["status"] for p in doc["providers"]} == {"aws": "ok", "sheets": "ok"}
    assert path.exists()


def test_serve_names_the_unreachable_url_and_the_command_that_starts_a_server(dead_api):
    result = CliRunner().invoke(app, ["serve"])
    assert result.exit_code == 2
    [line] = result.stderr.splitlines()
    assert f"no Prefect API answers at {dead_api}" in line
    assert "`uv run gpu-pricing server`" in line
    assert "unexpected" not in line


class _Answers401(BaseHTTPRequestHandler):
    def do_GET(self):  # an API that wants a key still answers
        self.send_response(401)
        self.end_headers()

    def log_message(self, *args):
        pass


def test_any_http_answer_counts_as_reachable_and_a_closed_port_does_not():
    server = HTTPServer(("127.0.0.1", 0), _Answers401)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        assert prefect_api_unreachable(f"http://127.0.0.1:{server.server_port}/api") is None
    finally:
        server.shutdown()
        server.server_close()
    problem = prefect_api_unreachable(closed_port_url())
    assert problem and problem.startswith("ConnectError")
    assert prefect_api_unreachable("not a url").startswith(("not a URL", "UnsupportedProtocol"))


@pytest.mark.slow  # two refreshes in a child process
def test_a_failed_alert_delivery_is_one_gpu_pricing_line_on_every_refresh(tmp_path):
    """A target that cannot be reached is retried at each refresh; each attempt says so
    in the command's own voice, not as a raw `WARNING:services.notify:` record."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    config = tmp_path / "gpu-pricing.toml"
    # H100: the one GPU the demo's OCI page counts (its other prices are illustrative,
    # which a rate rule never reads), so the rule fires on every refresh
    config.write_text(
        '[[notify]]\nname = "hook"\nurl_env = "HOOK_URL"\n'
        '[[rules]]\nname = "any-above-0"\nkind = "price_above"\ngpu = "H100"\n'
        "usd_per_gpu_hour = 0.01\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env.update(PREFECT_HOME=str(tmp_path / "ph"), HOOK_URL=f"json://{closed_port_url()[7:]}")
    argv = [str(Path(sys.executable).parent / "gpu-pricing"), "refresh", "--snapshot", "demo"]
    argv += ["--providers", "oci", "--config", str(config), "--warehouse", str(tmp_path / "w")]
    for _ in range(2):
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        lines = done.stderr.splitlines()
        assert lines and all(ln.startswith("gpu-pricing: warning: alert ") for ln in lines), lines
        assert any("any-above-0: delivery to hook failed" in ln for ln in lines)
