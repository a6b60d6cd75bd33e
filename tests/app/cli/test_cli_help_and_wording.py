"""Help texts and wording: every option explained, markup-like text kept, plain verdicts,
JSON keys named for their units."""

from __future__ import annotations

import json

import typer.main
from typer.testing import CliRunner

from gpu_pricing.cli import app

runner = CliRunner()


def options_without_help(command, path: str) -> list[str]:
    missing = [
        f"{path} {'/'.join(p.opts)}"
        for p in command.params
        if getattr(p, "param_type_name", "") == "option"
        and "--help" not in p.opts
        and not getattr(p, "help", None)
    ]
    for name, sub in getattr(command, "commands", {}).items():
        missing += options_without_help(sub, f"{path} {name}")
    return missing


def test_every_option_of_every_command_has_help():
    assert options_without_help(typer.main.get_command(app), "gpu-pricing") == []


def test_serve_help_keeps_the_config_table_name():
    result = runner.invoke(app, ["serve", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0
    assert "config's [schedule] table" in result.stdout


def test_spot_never_cheaper_is_said_plainly():
    args = ["breakeven", "spot", "--spot-rate", "3", "--on-demand-rate", "2"]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    [line] = [x for x in result.stdout.splitlines() if "break-even" in x]
    assert "spot is not cheaper than on-demand at any preemption rate" in line
    assert "0.0000 preemptions" not in result.stdout and "cheaper below" not in result.stdout
    # cheaper spot still gets its break-even rate: (1 - 1.5 * 1.05 / 4) / 0.5 = 1.2125
    cheaper = runner.invoke(app, ["breakeven", "spot", "--spot-rate", "1.5", "--on-demand-rate", "4"])
    assert "1.2125 preemptions per hour (spot is cheaper below)" in cheaper.stdout


def test_spot_json_names_the_rates_per_gpu_hour_and_keeps_the_old_keys():
    result = runner.invoke(
        app, ["breakeven", "spot", "--spot-rate", "1.5", "--on-demand-rate", "4", "--json"]
    )
    doc = json.loads(result.stdout)
    assert doc["spot_rate_usd_per_gpu_hour"] == 1.5 == doc["spot_rate_usd_per_hour"]
    assert doc["on_demand_rate_usd_per_gpu_hour"] == 4.0 == doc["on_demand_rate_usd_per_hour"]
