"""A plain refresh prints none of the Nebius SDK's own diagnostics: a fetch against a
local gRPC server that refuses the token, in its own process with the command line's
logging (root at WARNING), leaves stderr without deprecation notices, tracebacks or gRPC
core's `I1125 ...` lines; its failure is the one FetchFailure line."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import logging, os, sys
    logging.basicConfig(level=logging.WARNING, stream=sys.stderr)
    from connectors.nebius import fetch
    from connectors.kit.page import FetchContext
    from tests.connectors.nebius.nebius_server import serve

    with serve(echo=True) as fake:
        real = fetch.make_sdk
        fetch.make_sdk = lambda token, address=None: real(token, fake.address)
        for r in fetch.fetch_live(FetchContext()):
            print("RESULT", type(r).__name__)
    """
)


@pytest.mark.slow
def test_a_failing_nebius_fetch_prints_no_sdk_noise(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "GRPC_VERBOSITY"}
    env["NEBIUS_IAM_TOKEN"] = "QuietTestToken0123456789"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, timeout=120
    )
    assert "RESULT FetchFailure" in done.stdout, done.stderr[-2000:]
    noise = [
        line
        for line in done.stderr.splitlines()
        if "deprecated" in line or "Traceback" in line or re.match(r"^[IWE]\d{4} ", line)
    ]
    assert not noise, done.stderr[-2000:]
