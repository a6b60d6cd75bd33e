"""Every door gives the same answer: for every GPU, memory and pricing model of the demo
warehouse, the command line (`--json`), the Python API and the report name the same
cheapest offer at the same rate (mart_cheapest_gpu_hour's pick, the one cheapest-first
order), and `estimate` and `breakeven` answer with the offer and cost the API returns
first. In-process (CliRunner) against the session's demo warehouse; the API calls share
one connection (`warehouse=` takes an open one)."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from common import names
from gpu_pricing import api, report
from gpu_pricing.cli import app
from warehouse import db

KEY = ["provider", "region", "instance_type", "price_usd_per_gpu_hour"]
runner = CliRunner()


def cli_json(warehouse, *args: str) -> dict:
    result = runner.invoke(app, [*args, "--warehouse", str(warehouse), "--json"])
    assert result.exit_code == 0, (args, result.stderr)
    return json.loads(result.stdout)


@pytest.fixture(scope="module")
def cases(demo_warehouse) -> list[dict]:
    """Every (GPU, memory, pricing model) with a usable offer, from the report's table."""
    con = db.connect_readonly(demo_warehouse)
    try:
        sections = {s.key: s for s in report.build_sections(con, "H100")}
    finally:
        con.close()
    rows = sections["cheapest"].rows
    assert len(rows) > 50
    return rows


@pytest.fixture(scope="module")
def con(demo_warehouse):
    connection = db.connect_readonly(demo_warehouse)
    yield connection
    connection.close()


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_rates_api_cli_and_report_name_the_same_cheapest_offer(demo_warehouse, cases, con):
    mismatches = []
    for row in cases:
        args = (row["gpu_name"], row["gpu_memory_gib"], row["pricing_model"])
        first_api = api.rates(
            row["gpu_name"],
            memory=row["gpu_memory_gib"],
            pricing=row["pricing_model"],
            limit=1,
            warehouse=con,
        ).row(0, named=True)
        doc = cli_json(
            demo_warehouse, "rates", "--gpu", row["gpu_name"], "--memory",
            str(row["gpu_memory_gib"]), "--pricing", row["pricing_model"], "--limit", "1",
        )  # fmt: skip
        first_cli = doc["rates"][0]
        want = [row[k] for k in KEY]
        if [first_api[k] for k in KEY] != want or [first_cli[k] for k in KEY] != want:
            mismatches.append((args, want, first_api, first_cli))
    assert mismatches == []


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_estimates_answer_with_the_apis_first_offer_and_cost(demo_warehouse, cases, con):
    """`estimate train|infer --json` headline = api.estimate_*'s first row, for every
    case whose GPU has a peak (a small model, so every offer holds it)."""
    specs = api.offer_specs(con)
    with_peak = set(
        specs.filter(specs["bf16_tflops"].is_not_null())["gpu_name"].to_list()
    )
    checked = 0
    for row in cases:
        if row["gpu_name"] not in with_peak:
            continue
        gpu, memory, pricing = row["gpu_name"], row["gpu_memory_gib"], row["pricing_model"]
        try:
            frame = api.estimate_train(1e9, 1e10, gpu, memory=memory, pricing=pricing, warehouse=con)
        except names.InvalidInput:
            continue  # this memory size has no bf16 peak (a variant without one)
        first = frame.row(0, named=True)
        doc = cli_json(
            demo_warehouse, "estimate", "train", "--params", "1e9", "--tokens", "1e10",
            "--gpu", gpu, "--memory", str(memory), "--pricing", pricing,
        )  # fmt: skip
        assert doc["offer"]["instance_type"] == first["instance_type"], (gpu, memory, pricing)
        assert doc["cost_usd"] == pytest.approx(first["cost_usd"], rel=1e-12)
        # no offer that holds the model is cheaper than the answer
        fits = frame.filter(frame["fits_memory"])
        assert first["cost_usd"] == pytest.approx(fits["cost_usd"].min(), rel=1e-12)
        served = api.estimate_infer(
            1e9, 1000, gpu, memory=memory, pricing=pricing, warehouse=con
        ).row(0, named=True)
        doc = cli_json(
            demo_warehouse, "estimate", "infer", "--params", "1e9", "--requests", "1000",
            "--gpu", gpu, "--memory", str(memory), "--pricing", pricing,
        )  # fmt: skip
        assert doc["offer"]["instance_type"] == served["instance_type"]
        assert doc["cost_usd"] == pytest.approx(served["cost_usd"], rel=1e-12)
        checked += 1
    assert checked > 30


def test_breakeven_onprem_names_the_offer_mart_breakeven_onprem_compares_with(demo_warehouse):
    # buying is compared with the cheapest verified whole machine of the GPU's default form
    # factor, never a marketplace listing (the breakeven_onprem macro's rule): the command
    # and the API name the mart's offer
    con = db.connect_readonly(demo_warehouse)
    try:
        mart = db.query(
            con, "select * from mart_breakeven_onprem where gpu_name = 'H100' and gpu_memory_gib = 80"
        ).to_dicts()[0]
    finally:
        con.close()
    doc = cli_json(demo_warehouse, "breakeven", "onprem", "--gpu", "H100", "--memory", "80")
    assert [doc["offer"][k] for k in KEY[:3]] == [mart[k] for k in KEY[:3]]
    assert doc["rate_usd_per_gpu_hour"] == mart["on_demand_usd_per_gpu_hour"]
    assert doc["offer"]["gpu_variant"] == mart["gpu_variant"] == "SXM"


def test_breakeven_onprem_answers_as_the_api_does(demo_warehouse):
    """The command line's offer and break-even are the API's (the rent is the cheapest
    verified whole machine of the GPU's form factor, no marketplace listing)."""
    doc = cli_json(demo_warehouse, "breakeven", "onprem", "--gpu", "H100", "--memory", "80")
    engine = api.breakeven_onprem("h100-80gb", warehouse=demo_warehouse)
    assert [doc["offer"][k] for k in KEY] == [engine["offer"][k] for k in KEY]
    assert engine["break_even_gpu_hours"] == pytest.approx(doc["break_even_gpu_hours"])
