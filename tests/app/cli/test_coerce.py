"""The plain option values the command line converts without typer's pydantic adapters
(gpu_pricing.cli._coerce) come out as typer's own conversion gives them: the same value of
the same type, or the same error. Checked for every option of every command, on values a
user types and on each option's default."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import typer
import typer.main
from typer._coercion import build_runtime_param
from typer.core import _TyperParameter

from gpu_pricing.cli import _coerce, app

VALUES = (
    "", "0", "1", "5", "007", "50", "-1", "+5", " 5", "5 ", "1_000", "5.0", "5.5", ".5", "5.",
    "1e3", "7e9", "70B", "nan", "inf", "abc", "\u0665", "H100", "us-east-1", "/tmp", "a/",
    "/nonexistent/folder/w.duckdb", "-", 0, 1, 50, 2.5, -3, True, False,
)  # fmt: skip


def _commands(command, ctx=None):
    ctx = typer.Context(command, parent=ctx)
    yield command, ctx
    for name in getattr(command, "list_commands", lambda _: [])(ctx):
        yield from _commands(command.get_command(ctx, name), ctx)


def _plain_params():
    root = typer.main.get_command(app)
    for command, ctx in _commands(root):
        for param in [*command.get_params(ctx)]:
            if isinstance(param, _TyperParameter) and _coerce._plain(param):
                yield command, ctx, param


def _outcome(convert, *args, **kwargs):
    try:
        value = convert(*args, **kwargs)
    except typer.BadParameter as exc:
        return "error", exc.format_message()
    if isinstance(value, float) and math.isnan(value):
        return "ok", float, "nan"
    return "ok", type(value), value


@pytest.mark.slow  # every command built, and typer's adapters for each of its options
def test_plain_values_convert_as_typer_converts_them(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a").mkdir()
    checked = set()
    for command, ctx, param in _plain_params():
        d = param.type_descriptor
        direct = _coerce.Direct(parameter_info=d.parameter_info, annotation=d.annotation, descriptor=d)
        typers_own = build_runtime_param(d)
        for value in (*VALUES, param.default):
            if value is None or (d.annotation is bool and isinstance(value, bool)):
                continue  # never converted (typer's RuntimeParam.coerce, process_value)
            mine = _outcome(direct._coerce_value, value, param, ctx)
            theirs = _outcome(typers_own._coerce_value, value, param=param, ctx=ctx)
            assert mine == theirs, (command.name, param.name, value)
        checked.add(d.annotation if d.annotation in (str, int, float, bool) else Path)
    assert checked == {str, int, float, bool, Path}, checked


def test_every_plain_option_of_rates_is_converted_here():
    """A typer whose internals change (the conversion is set where typer builds its own)
    fails here rather than silently loading pydantic again."""
    assert getattr(_TyperParameter.get_runtime_param, "direct", False)
    root = typer.main.get_command(app)
    ctx = typer.Context(root)
    rates = root.get_command(ctx, "rates")
    sub = typer.Context(rates, parent=ctx)
    params = [p for p in rates.get_params(sub) if isinstance(p, _TyperParameter)]
    assert {p.name for p in params} >= {"warehouse", "gpu", "memory", "limit", "help"}
    for param in params:
        assert _coerce._plain(param), param.name
        assert isinstance(param.get_runtime_param(), _coerce.Direct), param.name


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--limit", "0"], "greater than or equal to 1"),
        (["--limit", "abc"], "valid integer"),
        (["--memory", "eighty"], "valid number"),
    ],
)
def test_a_value_typer_refuses_is_refused_with_typers_words(args, message, tmp_path):
    """(converted before the command reads anything: the warehouse need not exist)"""
    from typer.testing import CliRunner

    done = CliRunner().invoke(app, ["rates", *args, "--warehouse", str(tmp_path / "w.duckdb")])
    assert done.exit_code == 2
    assert message in done.output.replace("\n", " "), done.output
