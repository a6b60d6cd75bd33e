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


def command_paths(command, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    paths = [path]
    for name, sub in getattr(command, "commands", {}).items():
        paths += command_paths(sub, (*path, name))
    return paths


def test_every_commands_help_ends_with_a_newline_and_nothing_else(monkeypatch, capfd):
    """Through `main()`, as a user runs it: stdout is the redacting stream, which Click
    probes with write(b"") (a text stream must refuse bytes, not print their repr)."""
    import sys

    import pytest

    from gpu_pricing.cli import main

    paths = command_paths(typer.main.get_command(app))
    assert len(paths) > 15
    bad = {}
    for path in paths:
        monkeypatch.setattr(sys, "argv", ["gpu-pricing", *path, "--help"])
        monkeypatch.setattr(sys, "stdout", sys.stdout)
        monkeypatch.setattr(sys, "stderr", sys.stderr)
        with pytest.raises(SystemExit) as exit_:
            main()
        out, err = capfd.readouterr()
        if exit_.value.code not in (0, None) or not out.endswith("\n") or "b'" in out or err:
            bad[" ".join(path)] = (exit_.value.code, out[-40:], err[-200:])
    assert bad == {}


WIDE = [
    ["rates"],
    ["rates", "--include-illustrative", "--include-gpu-only"],
    ["history", "--gpu", "H100"],
    ["history", "--gpu", "H100", "--pricing", "spot"],
    ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"],
    [
        "estimate",
        "infer",
        "--params",
        "70B",
        "--prompt-tokens",
        "2048",
        "--requests",
        "1M",
        "--gpu",
        "H100",
    ],
    ["breakeven", "spot", "--gpu", "H100"],
    ["breakeven", "onprem", "--gpu", "H100"],
    ["plan", "train", "--params", "7B", "--tokens", "100B"],
    ["plan", "serve", "--params", "7B", "--tokens-per-month", "1T"],
]


def test_wide_tables_fit_a_120_column_terminal(demo_warehouse):
    too_wide = {}
    for args in WIDE:
        result = runner.invoke(
            app, [*args, "--warehouse", str(demo_warehouse)], env={"COLUMNS": "120"}
        )
        assert result.exit_code == 0, (args, result.stderr)
        widest = max(len(line) for line in result.stdout.splitlines())
        if widest > 120:
            too_wide[" ".join(args)] = widest
    assert too_wide == {}
