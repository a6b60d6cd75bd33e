"""`gpu-pricing server`: the process becomes Prefect's server (`prefect server start`) on the
host and port asked for (`--port`, else $PREFECT_SERVER_API_PORT, else 4200), after one line
that tells the user what to run next with this server's URL.

The real server, started with the command `serve`'s error prints, answering on the port asked
for and stopping on Ctrl-C without a traceback, is tests/flows/test_serve_stop.py's (one
Prefect server for both files: its start is 10-40 s on a 2-core machine). Here, in this
process, what the command hands over to Prefect.
"""

from __future__ import annotations

import os
import sys

import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app

# what the fake os.execv ends the command with: the process would now be Prefect's server
# (SystemExit: the command's error handling lets it through, as a real exec never returns)
BECAME = 97


@pytest.fixture
def exec_argv(monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []

    def execv(path, argv):
        calls.append([path, *argv])
        raise SystemExit(BECAME)

    monkeypatch.setattr(os, "execv", execv)
    monkeypatch.delenv("PREFECT_SERVER_API_PORT", raising=False)
    monkeypatch.delenv("PREFECT_SERVER_API_HOST", raising=False)
    return calls


@pytest.mark.parametrize(
    ("args", "env", "port"),
    [
        (["--port", "5123"], {}, "5123"),
        ([], {"PREFECT_SERVER_API_PORT": "5124"}, "5124"),
        (["--port", "5125"], {"PREFECT_SERVER_API_PORT": "5124"}, "5125"),
        ([], {}, "4200"),
    ],
)
def test_the_command_becomes_prefects_server_on_the_port_asked_for(exec_argv, args, env, port):
    result = CliRunner().invoke(app, ["server", *args], env=env)
    assert result.exit_code == BECAME, result.output
    api = f"http://127.0.0.1:{port}/api"
    assert exec_argv == [
        [sys.executable, sys.executable, "-m", "prefect", "server", "start",
         "--host", "127.0.0.1", "--port", port],
    ]  # fmt: skip
    # the line tells the user what to run next, with this server's URL
    assert result.stdout.splitlines() == [
        f"starting a Prefect server at {api}; then, in another shell: "
        f"`PREFECT_API_URL={api} uv run gpu-pricing serve`"
    ]
