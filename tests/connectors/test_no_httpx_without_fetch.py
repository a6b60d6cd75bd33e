"""Declaring the connectors loads no HTTP client: every command imports the registry (all
connectors, their REST endpoints and auth steps), and a snapshot replay or a read command
fetches nothing, so httpx (with the click, rich and pygments its command-line module pulls
in) is imported by a live fetch only. The whole refresh process is checked in
tests/flows/test_refresh_direct.py."""

from __future__ import annotations

import subprocess
import sys

import pytest


@pytest.mark.slow  # a subprocess
def test_importing_every_connector_does_not_import_httpx():
    code = (
        "import sys\n"
        "from connectors.registry import PROVIDERS\n"
        "assert len(PROVIDERS) >= 19, sorted(PROVIDERS)\n"
        "print(sorted(m for m in ('httpx', 'click', 'rich', 'pygments') if m in sys.modules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.strip() == "[]", done.stdout


def test_a_live_fetch_still_has_its_host_bound_client():
    from connectors.kit import http

    with http.make_client() as client:
        assert "httpx" in sys.modules
        assert type(client).__name__ == "HostBoundClient"
        assert client.follow_redirects
