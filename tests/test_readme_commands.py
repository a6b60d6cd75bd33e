"""Every command README.md's Quick start shows works as written, on a fresh directory, and
CI runs the README's test command verbatim.

Each command runs in a temporary working directory with the project's environment (the one
running this test): `python -m pip install uv==0.13.8 &&` and `uv run [--frozen]` are what
put that environment in place, so they are stripped here (CI runs them for real)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
INSTALL = "python -m pip install uv==0.13.8 && "
TEST_COMMAND = INSTALL + "uv run --frozen pytest"


def quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```bash\n(.*?)```", section, flags=re.S)
    return [
        line.strip()
        for block in blocks
        for line in block.splitlines()
        if line.strip() and not line.strip().startswith("#")
    ]


def as_run_here(command: str) -> list[str]:
    command = command.removeprefix(INSTALL)
    for prefix in ("uv run --frozen ", "uv run "):
        if command.startswith(prefix):
            argv = shlex.split(command.removeprefix(prefix))
            return [str(BIN / argv[0]), *argv[1:]]
    raise AssertionError(f"README command not run through uv: {command}")


def test_the_quick_start_shows_the_two_commands_and_ci_runs_the_test_one_verbatim():
    commands = quick_start_commands()
    assert commands[:2] == [INSTALL + "uv run --frozen gpu-pricing refresh --snapshot demo", TEST_COMMAND]
    assert TEST_COMMAND in (REPO / ".ci" / "run").read_text().splitlines()


@pytest.mark.slow  # each command in its own process, the refresh included
def test_every_quick_start_command_runs_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    commands = [c for c in quick_start_commands() if c != TEST_COMMAND]  # this very suite
    assert len(commands) >= 5 and any(" duckdb " in f" {c} " for c in commands)
    for command in commands:  # in order: the refresh first builds the warehouse the others read
        done = subprocess.run(
            as_run_here(command), cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300
        )
        assert done.returncode == 0, f"{command}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
        assert done.stdout.strip(), command
        if " --json" in command:
            json.loads(done.stdout)
    assert (tmp_path / "warehouse" / "gpu_pricing.duckdb").exists()


@pytest.mark.parametrize("relation", ["mart_cheapest_gpu_hour", "mart_gpu_offers_current"])
def test_the_duckdb_shell_opens_what_a_refresh_writes(demo_warehouse, relation):
    """The shell from PyPI is a DuckDB 1.x build; the file is written by DuckDB 2.0 in the
    1.1 storage format, so it opens and reads the marts."""
    done = subprocess.run(
        [str(BIN / "duckdb"), "-readonly", "-csv", str(demo_warehouse), f"select count(*) from {relation}"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.splitlines()[-1]) > 0
