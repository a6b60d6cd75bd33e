"""Start-up: a read command loads neither Prefect, nor the connectors, nor an HTTP client
(together most of a command's start-up); `rates` and `history` load no Polars, pyarrow nor
pydantic either (their rows are printed as DuckDB gives them; typer converts no plain option value
through pydantic: gpu_pricing.cli._coerce); a command that runs connectors builds them all
before its first line, so redaction masks every connector's credential variables.

Slow: each command runs in its own process, as the `gpu-pricing` script runs it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import typer

from gpu_pricing.cli import READ_COMMANDS, app

pytestmark = pytest.mark.slow

# services.config: the config file (and its pydantic models) is not read when --warehouse
# names the file, the one thing a read command takes from it
HEAVY = ("prefect", "connectors.registry", "httpx", "services.config")
# what the commands that only print rows need not load (~0.9 s of CPU where Python compiles
# modules from source, PYTHONDONTWRITEBYTECODE: twice the rest of `rates`' start-up)
FRAMES = ("polars", "pyarrow", "pydantic")
# not the AKIA shape, nor a name that says secret: only the AWS connector's declaration
# (`credentials=`) makes redaction mask it
ACCESS_KEY_ID = "FRONTDOORKEYID0123456789"

RUN = f"""
import json, sys
from gpu_pricing.cli import main
sys.argv = ['gpu-pricing', *sys.argv[1:]]
code = None
try:
    main()
except SystemExit as e:
    code = e.code
from common.redact import redact
sys.__stderr__.write(json.dumps({{
    "code": code,
    "loaded": [m for m in {HEAVY!r} if m in sys.modules],
    "frames": [m for m in {FRAMES!r} if m in sys.modules],
    "commands": sorted(m.rsplit(".", 1)[1] for m in sys.modules
                       if m.startswith("gpu_pricing.cli.") and not m.startswith("gpu_pricing.cli._")),
    "masks_key_id": redact({ACCESS_KEY_ID!r}) != {ACCESS_KEY_ID!r},
}}))
"""


def started(tmp_path, *args: str) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env.update(PREFECT_HOME=str(tmp_path / "prefect-home"), AWS_ACCESS_KEY_ID=ACCESS_KEY_ID)
    done = subprocess.run(
        [sys.executable, "-c", RUN, *args],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=180,
    )  # fmt: skip
    return json.loads(done.stderr[done.stderr.rindex("{") :])


def test_read_commands_load_no_connector_no_http_client_and_no_prefect(tmp_path, demo_warehouse):
    """... and of the command line's modules, only the one that defines the command (the
    group modules load lazily: gpu_pricing.cli.COMMANDS)."""
    w = ["--warehouse", str(demo_warehouse)]
    for args, modules in (
        (["rates", "--gpu", "H100", "--limit", "3", *w], ["core"]),
        (["history", "--gpu", "H100", *w], ["core"]),
        (["estimate", "train", "--params", "7e9", "--tokens", "1e11", "--gpu", "H100", *w],
         ["costs", "estimate"]),
        (["breakeven", "onprem", "--gpu", "H100", *w], ["breakeven", "costs"]),
        (["rates", "--json", *w], ["core"]),
        # a provider the warehouse holds is checked against it, not the connectors'
        (["rates", "--provider", "AWS", "--region", "US-EAST-1", *w], ["core"]),
        (["--version"], []),
    ):  # fmt: skip
        result = started(tmp_path, *args)
        assert result["code"] in (0, None), (args, result)
        assert result["loaded"] == [], (args, result)
        assert result["commands"] == modules, (args, result)
        if args[0] in ("rates", "history", "--version"):
            assert result["frames"] == [], (args, result)


def test_commands_that_run_connectors_mask_every_connector_credential_from_the_start(tmp_path):
    # each stops at once on a bad value, after the start-up that every run of it has
    for args in (
        ["refresh", "--providers", "nope", "--warehouse", str(tmp_path / "w.duckdb")],
        ["snapshot", "record", str(tmp_path / "snap"), "--providers", "nope"],
        ["raw", "verify", "--warehouse", str(tmp_path / "missing" / "w.duckdb")],
    ):
        result = started(tmp_path, *args)
        assert result["code"] == 2, (args, result)
        assert "connectors.registry" in result["loaded"], (args, result)
        assert result["masks_key_id"], (args, result)


def test_a_refresh_that_finds_nothing_changed_loads_no_frame_library(tmp_path):
    """The unchanged path (landing, the unchanged check, the alerts' checks, the summary's
    reads) runs on DuckDB and plain Python: Polars and pyarrow (~0.4 s of start-up where
    modules compile from source) load only when a page is parsed."""
    args = ["refresh", "--snapshot", "demo", "--providers", "azure", "--json",
            "--warehouse", str(tmp_path / "w.duckdb")]  # fmt: skip
    first = started(tmp_path, *args)
    assert first["code"] in (0, None) and "polars" in first["frames"], first
    again = started(tmp_path, *args)
    assert again["code"] in (0, None), again
    assert "polars" not in again["frames"] and "pyarrow" not in again["frames"], again
    assert again["masks_key_id"], again  # every connector built, its parse not imported


def test_building_the_connectors_imports_no_parse_module():
    """Each connector names its parse (and AWS its fetch and staged tables) with
    `connectors.kit.connector.later`: built, no parse module nor Polars is imported."""
    code = (
        "import sys, json; import connectors.registry as r; "
        "print(json.dumps([m for m in sys.modules if m == 'polars' or "
        "m.startswith('connectors.') and m.endswith('.parse')]))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert json.loads(done.stdout) == [], done.stderr


def test_every_read_command_exists():
    """READ_COMMANDS names commands of the command line (a renamed one would silently
    lose its fast start, or a new command be taken for a reader)."""
    names = set(typer.main.get_command(app).commands)
    assert names >= READ_COMMANDS, READ_COMMANDS - names
