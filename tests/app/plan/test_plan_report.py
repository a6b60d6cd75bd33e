"""The report's plan section: the frontier of the workload in gpu-pricing.toml's [plan]."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

import gpu_pricing
from gpu_pricing import report
from gpu_pricing.cli import app
from services import config


def test_the_plan_section_charts_the_frontier_of_the_configured_workload(con_demo, demo_warehouse):
    workload = config.PlanWorkload(params=7e9, tokens=3e11, deadline_hours=240)
    html, sections = report.render(con_demo, workload=workload)
    assert sections["plan"] is True
    (section,) = [s for s in report.build_sections(con_demo, "H100", workload) if s.key == "plan"]
    expected = gpu_pricing.plan_train(
        params=7e9, tokens=3e11, deadline_hours=240, warehouse=demo_warehouse
    ).frontier
    assert [r["cost_usd"] for r in section.rows] == pytest.approx(expected["cost_usd"].to_list())
    assert all(r["wall_clock_hours"] <= 240 for r in section.rows)
    assert 'id="chart-plan"' in html and "7B parameters on 300B tokens" in html


def test_the_default_workload_is_70b_on_2t_tokens(con_demo):
    (section,) = [s for s in report.build_sections(con_demo, "H100") if s.key == "plan"]
    assert section.has_data and "70B parameters on 2T tokens" in section.title


def test_a_workload_nothing_can_meet_says_so_and_the_other_sections_go_on(con_demo):
    workload = config.PlanWorkload(budget_usd=1.0)
    _, sections = report.render(con_demo, workload=workload)
    assert sections["plan"] is False and sections["cheapest"] is True
    (section,) = [s for s in report.build_sections(con_demo, "H100", workload) if s.key == "plan"]
    assert "cheapest plan costs" in section.note


def test_the_report_command_plans_the_plan_table_of_the_config(tmp_path, demo_warehouse):
    toml = tmp_path / "gpu-pricing.toml"
    toml.write_text("[plan]\nparams = 1\ntokens = 1\nbudget_usd = 1e-30\n")
    out = tmp_path / "r.html"
    result = CliRunner().invoke(
        app,
        [
            "report",
            "--out",
            str(out),
            "--config",
            str(toml),
            "--warehouse",
            str(demo_warehouse),
            "--json",
        ],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["sections"]["plan"] is False
    assert "no plan meets the budget" in out.read_text()


@pytest.mark.parametrize(
    ("body", "named"),
    [
        ("[plan]\nparams = -1\n", "plan.params"),
        ("[plan]\nmax_gpus = 8.5\n", "plan.max_gpus"),
        ("[plan]\npricing_models = ['cheap']\n", "plan.pricing_models[0]"),
        ("[plan]\ngpu_names = ['H900']\n", "plan.gpu_names[0]"),
        ("[plan]\nprovider = ['aws']\n", "plan.provider"),
    ],
)
def test_a_bad_plan_table_is_one_error_naming_the_key(tmp_path, body, named):
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(body)
    with pytest.raises(config.ConfigError, match=named.replace("[", r"\[").replace("]", r"\]")):
        config.load(path)


def test_the_plan_table_parses(tmp_path):
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(
        "[plan]\nparams = 7e9\ntokens = 1.4e11\ndeadline_hours = 72\nproviders = ['aws']\n"
        "pricing_models = ['spot', 'on_demand']\ngpu_names = ['h100']\n"
    )
    plan = config.load(path).plan
    assert (plan.params, plan.tokens, plan.deadline_hours, plan.budget_usd) == (
        7e9,
        1.4e11,
        72.0,
        None,
    )
    assert plan.providers == ("aws",) and plan.gpu_names == ("H100",)
    assert plan.pricing_models == ("spot", "on_demand")


def test_the_plan_section_shows_each_plans_instance_limit_and_its_source(con_demo):
    (section,) = [s for s in report.build_sections(con_demo, "H100") if s.key == "plan"]
    assert {"instances", "max_instances", "capacity_source"} <= set(section.columns)
    assert all(r["instances"] <= r["max_instances"] for r in section.rows)


def test_the_serve_section_compares_gpus_on_the_roofline(con_demo, demo_warehouse):
    (section,) = [s for s in report.build_sections(con_demo, "H100") if s.key == "serve"]
    assert section.has_data and "70B parameters" in section.title
    by_gpu = {(r["gpu_name"], r["gpu_memory_gib"]): r for r in section.rows}
    # each GPU type's cheapest on-demand offer per output token, as plan serve prices it
    plans = gpu_pricing.plan_serve(
        params=70e9, tokens_per_month=1e9, pricing="on_demand", warehouse=demo_warehouse
    ).plans
    h100 = plans.filter((plans["gpu_name"] == "H100") & (plans["strategy"] == "on_demand"))
    assert by_gpu[("H100", 80.0)]["usd_per_1m_output_tokens"] == pytest.approx(
        h100["usd_per_1m_output_tokens"].min()
    )
    assert all(r["tokens_per_second_per_user"] >= 20 for r in section.rows)
    assert {r["bound"] for r in section.rows} <= {"memory", "compute"}
