"""`gpu-pricing server`: Prefect's server started the way the docs and `serve`'s errors say,
on the port asked for; it answers on its health endpoint and stops on Ctrl-C.

Slow: a real Prefect server on loopback (10-40 s to start on a 2-core machine).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests._processes import free_port

pytestmark = pytest.mark.slow

GPU_PRICING = Path(sys.executable).parent / "gpu-pricing"


def test_server_answers_on_the_port_asked_for_and_stops_on_ctrl_c(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), PREFECT_SERVER_UI_ENABLED="false")
    log = tmp_path / "server.log"
    proc = subprocess.Popen(
        [str(GPU_PRICING), "server", "--port", str(port)],
        env=env,
        cwd=tmp_path,
        stdout=log.open("w"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    api = f"http://127.0.0.1:{port}/api"
    try:
        deadline = time.monotonic() + 120
        while True:
            assert proc.poll() is None, log.read_text()[-2000:]
            assert time.monotonic() < deadline, log.read_text()[-2000:]
            try:
                if httpx.get(f"{api}/health", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        first = log.read_text().splitlines()[0]
        # the line tells the user what to run next, with this server's URL
        assert f"`PREFECT_API_URL={api} uv run gpu-pricing serve`" in first, first
        os.killpg(proc.pid, signal.SIGINT)  # Ctrl-C in the terminal it runs in
        proc.wait(timeout=60)
        assert "Traceback" not in log.read_text(), log.read_text()[-3000:]
        with pytest.raises(httpx.HTTPError):
            httpx.get(f"{api}/health", timeout=2)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=20)
