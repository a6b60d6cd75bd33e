"""Running the command line as a user does (typer's CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from gpu_pricing.cli import app

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, [str(a) for a in args], catch_exceptions=False)


def cli_json(warehouse: Path, *args: str) -> dict:
    result = cli(*args, "--warehouse", warehouse, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)
