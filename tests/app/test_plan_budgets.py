"""A budget tied to a plan, end to end on the demo: save `plan train|serve --json`, name it
in gpu-pricing.toml's `[[budgets]]` as `plan_file`, and `gpu-pricing alerts check` (and
`gpu_pricing.alerts_check`) forecasts the plan's cost for its period, one state per
budget; a bad plan file is one line naming the key."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

import gpu_pricing
from gpu_pricing.cli import app

runner = CliRunner()
pytestmark = pytest.mark.slow  # plans and alert checks on a copy of the demo warehouse


@pytest.fixture
def warehouse(tmp_path, demo_warehouse) -> Path:
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    return path


def saved_plan(warehouse: Path, path: Path, *args: str) -> dict:
    result = runner.invoke(app, ["plan", *args, "--warehouse", str(warehouse), "--json"])
    assert result.exit_code == 0, result.stderr
    path.write_text(result.stdout)
    return json.loads(result.stdout)


def config(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(body)
    return path


def check(warehouse: Path, cfg: Path) -> dict:
    result = runner.invoke(
        app, ["alerts", "check", "--config", str(cfg), "--warehouse", str(warehouse), "--json"]
    )
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def test_a_training_plan_budget_forecasts_the_plans_cost_for_the_run(tmp_path, warehouse):
    plan_file = tmp_path / "llama.json"
    plan = saved_plan(warehouse, plan_file, "train", "--params", "70B", "--tokens", "2T")
    cost = plan["chosen"]["cost_usd"]
    cfg = config(
        tmp_path,
        f"""
[[budgets]]
name = "llama run"
plan_file = "{plan_file}"
budget_usd = {cost / 2}
""",
    )
    doc = check(warehouse, cfg)
    budgets = [r for r in doc["rules"] if r["rule"].startswith("budget:")]
    assert [r["rule"] for r in budgets] == ["budget:llama run"]  # one state per budget
    (b,) = budgets
    assert b["value"] == pytest.approx(cost) and b["state"] == "ALARM"
    assert str(plan_file) in b["message"] and "for the whole run" in b["message"]
    assert "the rate there is unchanged" in b["message"]
    assert "crossed 50%, 80%, 100%" in b["message"]
    # the same through the Python API, which records nothing new (no change of state)
    again = gpu_pricing.alerts_check(cfg, warehouse, deliver=False)
    assert [r["value"] for r in again["rules"] if r["rule"] == "budget:llama run"] == [
        pytest.approx(cost)
    ]
    assert again["fired"] == []


def test_a_serving_plan_budget_is_monthly_and_says_when_the_rate_moved(tmp_path, warehouse):
    plan_file = tmp_path / "serve.json"
    plan = saved_plan(
        warehouse, plan_file, "serve", "--params", "70B", "--tokens-per-month", "10B"
    )
    monthly = plan["chosen"]["monthly_cost_usd"]
    cfg = config(
        tmp_path,
        f"""
[[budgets]]
name = "chat"
plan_file = "{plan_file}"
budget_usd = {monthly * 4}
""",
    )
    (b,) = [r for r in check(warehouse, cfg)["rules"] if r["rule"] == "budget:chat"]
    assert b["value"] == pytest.approx(monthly) and b["state"] == "OK"
    assert "for a month" in b["message"]
    # a plan saved when its rate was lower: the forecast stays the plan's, the message says
    # the rate there moved and to re-plan
    plan["chosen"]["base_rate_usd_per_gpu_hour"] /= 2
    plan_file.write_text(json.dumps(plan))
    (moved,) = [r for r in check(warehouse, cfg)["rules"] if r["rule"] == "budget:chat"]
    assert moved["value"] == pytest.approx(monthly)
    assert "moved from" in moved["message"] and "+100.0%" in moved["message"]


@pytest.mark.parametrize(
    ("extra", "content", "message"),
    [
        ("", "not json", "not JSON"),
        ("", '{"inputs": {}}', "no chosen plan"),
        ("", '{"chosen": {"gpu_name": "H100"}, "frontier": []}', "chosen.gpu_memory_gib"),
        ('hours_per_day = 8\n', None, "hours_per_day: is taken from the plan file"),
        ('period = "month"\n', None, "a train plan's budget has period 'total'"),
    ],
)
def test_a_bad_plan_budget_is_one_line_naming_the_key(
    tmp_path, warehouse, extra, content, message
):
    plan_file = tmp_path / "plan.json"
    if content is None:
        saved_plan(warehouse, plan_file, "train", "--params", "7B", "--tokens", "140B")
    else:
        plan_file.write_text(content)
    cfg = config(
        tmp_path,
        f'[[budgets]]\nname = "b"\nplan_file = "{plan_file}"\nbudget_usd = 100\n{extra}',
    )
    result = runner.invoke(
        app, ["alerts", "check", "--config", str(cfg), "--warehouse", str(warehouse)]
    )
    assert result.exit_code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "budgets[0]" in lines[0] and message in lines[0], result.stderr
