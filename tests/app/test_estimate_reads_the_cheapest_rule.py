"""Every door gives the same answer: for every GPU, memory and pricing model of the demo
warehouse, the command line (`--json`), the Python API and the report name the same
cheapest offer at the same rate (mart_cheapest_gpu_hour's pick, the one cheapest-first
order), and `estimate` and `breakeven` answer with the offer and cost the API returns
first. In-process (CliRunner, the Click command built once per module as the installed
command builds it once per process) against the session's demo warehouses; the API calls
share one connection (`warehouse=` takes an open one). Fast: in the default loop. One
subprocess smoke (the installed command, marked slow) checks the in-process answers are
the command's own."""

from __future__ import annotations

import json
import subprocess
import sys

import polars as pl
import pytest
import typer.testing
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


@pytest.fixture(scope="module", autouse=True)
def command_built_once():
    """The Click command typer builds from the app, built once for the module (as the
    installed `gpu-pricing` builds it once per process) instead of once per invocation."""
    built = {}

    def get_command(app):
        if id(app) not in built:
            built[id(app)] = original(app)
        return built[id(app)]

    original = typer.testing._get_command
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(typer.testing, "_get_command", get_command)
        yield


def report_cases(path) -> list[dict]:
    """Every (GPU, memory, pricing model) with a usable offer, from the report's table."""
    con = db.connect_readonly(path)
    try:
        return report.cheapest_section(con, "H100").rows
    finally:
        con.close()


@pytest.fixture(scope="module")
def cases(demo_warehouse) -> list[dict]:
    rows = report_cases(demo_warehouse)
    assert len(rows) > 30  # the demo's real prices: every GPU and pricing model they cover
    return rows


@pytest.fixture(scope="module")
def con(demo_warehouse):
    connection = db.connect_readonly(demo_warehouse)
    yield connection
    connection.close()


@pytest.mark.parametrize("which", ["demo", "every price counted"])
def test_rates_api_cli_and_report_name_the_same_cheapest_offer(
    demo_warehouse, demo_counted_warehouse, which
):
    """On the demo as a user gets it, and on the demo with every price counted (every
    pricing model the warehouse holds: savings plans, reservations, spot)."""
    path = demo_warehouse if which == "demo" else demo_counted_warehouse
    cases = report_cases(path)
    assert len(cases) > (30 if which == "demo" else 50)
    con = db.connect_readonly(path)
    try:
        assert_same_first_offers(path, cases, con)
    finally:
        con.close()


GROUP = ["gpu_name", "gpu_memory_gib", "pricing_model"]


def firsts(frame: pl.DataFrame) -> dict[tuple, dict]:
    """The first row of each (GPU, memory, pricing model) of a cheapest-first listing."""
    first = frame.group_by(GROUP, maintain_order=True).first()
    return {tuple(r[k] for k in GROUP): r for r in first.to_dicts()}


def assert_same_first_offers(demo_warehouse, cases, con) -> None:
    """Every case at once: the whole cheapest-first listing from `rates --json` and from
    the API (one call each), whose first row per (GPU, memory, pricing model) must be the
    report's row; then one case per pricing model asked the way a user asks it (--gpu,
    --memory, --pricing, --limit 1), which must name the same offer."""
    listing = cli_json(demo_warehouse, "rates", "--limit", "100000")["rates"]
    by_cli = firsts(pl.DataFrame(listing, infer_schema_length=None))
    by_api = firsts(api.rates(warehouse=con))
    mismatches = []
    for row in cases:
        key = tuple(row[k] for k in GROUP)
        want = [row[k] for k in KEY]
        got_cli, got_api = by_cli.get(key), by_api.get(key)
        if [got_api and got_api[k] for k in KEY] != want or [
            got_cli and got_cli[k] for k in KEY
        ] != want:
            mismatches.append((key, want, got_api, got_cli))
    asked = {row["pricing_model"]: row for row in cases}  # the last case of each model
    for row in asked.values():
        doc = cli_json(
            demo_warehouse, "rates", "--gpu", row["gpu_name"], "--memory",
            str(row["gpu_memory_gib"]), "--pricing", row["pricing_model"], "--limit", "1",
        )  # fmt: skip
        first = api.rates(
            row["gpu_name"], memory=row["gpu_memory_gib"], pricing=row["pricing_model"],
            limit=1, warehouse=con,
        ).row(0, named=True)  # fmt: skip
        want = [row[k] for k in KEY]
        if [doc["rates"][0][k] for k in KEY] != want or [first[k] for k in KEY] != want:
            mismatches.append((row["pricing_model"], want, first, doc["rates"][0]))
    assert mismatches == []


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
    assert checked > 15


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


@pytest.mark.slow  # a child process: the installed command
def test_the_installed_command_answers_as_the_in_process_one(demo_warehouse, con):
    """The smoke behind the fast tests: `gpu-pricing rates --json` run as a user runs it
    names the API's first offer."""
    done = subprocess.run(
        [sys.executable, "-m", "gpu_pricing.cli", "rates", "--gpu", "H100", "--pricing",
         "on_demand", "--limit", "1", "--json", "--warehouse", str(demo_warehouse)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    first = json.loads(done.stdout)["rates"][0]
    engine = api.rates("H100", pricing="on_demand", limit=1, warehouse=con).row(0, named=True)
    assert [first[k] for k in KEY] == [engine[k] for k in KEY]
    assert first == cli_json(demo_warehouse, "rates", "--gpu", "H100", "--pricing",
                             "on_demand", "--limit", "1")["rates"][0]  # fmt: skip
