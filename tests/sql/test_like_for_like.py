"""Like for like: spot and reserved prices are compared with the on-demand price of the
same provider, region and instance type (same zone where both have one), through one
pairing view; chart bars say where they come from; a model that does not fit in memory is
not ranked as if it did; accelerator-only prices are not ranked against machines."""

from __future__ import annotations

import math
import shutil

import duckdb
import pytest

from gpu_pricing import report
from models import memory_fit
from tests._cli import cli, cli_json
from warehouse import materialise


@pytest.fixture(scope="module")
def zonal(tmp_path_factory, demo_warehouse):
    """The demo warehouse plus one made-up provider priced per zone:
    on-demand r1-a 10.0 and r1-b 5.0; spot r1-a 8.0 and r1-c 5.5; reserved_1y r1-a 6.0;
    and a regional reserved_3y (zone null) at 4.0."""
    path = tmp_path_factory.mktemp("zonal") / "w.duckdb"
    shutil.copy(demo_warehouse, path)
    con = duckdb.connect(str(path))
    rows = [
        ("r1-a", "on_demand", 10.0),
        ("r1-b", "on_demand", 5.0),
        ("r1-a", "spot", 8.0),
        ("r1-c", "spot", 5.5),
        ("r1-a", "reserved_1y", 6.0),
        (None, "reserved_3y", 4.0),
    ]
    for zone, model, price in rows:
        con.execute(
            """insert into snp_offers_history by name
               select 'testcloud' as connector, 'testcloud' as provider, 'r1' as region,
                      ? as zone, 'box.8' as instance_type, ? as pricing_model,
                      'H100' as gpu_name, 80.0 as gpu_memory_gib, 8.0 as gpu_count,
                      ? as price_usd_per_hour, ? / 8 as price_usd_per_gpu_hour,
                      'api' as provenance, timestamp '2026-11-20 02:00' as fetched_at,
                      'test-load' as load_id, 'offers' as endpoint,
                      timestamp '2026-11-20 02:00' as valid_from""",
            [zone, model, price, price],
        )
    materialise.materialise(con)  # the marts a refresh stores, rebuilt from that history
    con.close()
    con = duckdb.connect(str(path), read_only=True)
    yield con
    con.close()


def test_a_spot_price_pairs_with_its_own_zones_on_demand_price(zonal):
    got = zonal.sql(
        """select zone, on_demand_zone, on_demand_usd_per_hour from mart_spot_on_demand_pairs
           where provider = 'testcloud' order by zone"""
    ).fetchall()
    # r1-a against r1-a's 10.0 (not r1-b's 5.0); r1-c has no on-demand price of its own zone
    # and there is no regional one, so it is not paired at all
    assert got == [("r1-a", "r1-a", 10.0)]


def test_the_spot_flag_uses_the_same_pairs(zonal):
    flags = dict(
        zonal.sql(
            """select zone, price_flag from mart_gpu_offers_current
               where provider = 'testcloud' and pricing_model = 'spot'"""
        ).fetchall()
    )
    # 8.0 is below its own zone's 10.0 (it is above r1-b's 5.0, another zone)
    assert flags == {"r1-a": None, "r1-c": None}


def test_reserved_pairs_by_the_same_rule_a_regional_price_pairs_with_zonal_ones(zonal):
    got = zonal.sql(
        """select term, zone, on_demand_zone, on_demand_usd_per_hour from mart_reserved_breakeven
           where provider = 'testcloud' order by term"""
    ).fetchall()
    # the zonal reserved_1y with its own zone's on-demand price; the regional reserved_3y
    # has two zonal candidates (r1-a 10.0, r1-b 5.0), none of its zone: the cheapest
    assert got == [("reserved_1y", "r1-a", "r1-a", 10.0), ("reserved_3y", None, "r1-b", 5.0)]


def test_every_flagged_spot_price_is_at_or_above_its_pair_and_vice_versa(con_demo):
    mismatched = con_demo.sql(
        """select m.provider, m.region, m.zone, m.instance_type
           from mart_gpu_offers_current m
           left join mart_spot_on_demand_pairs p using (provider, region, instance_type)
           where m.pricing_model = 'spot' and p.zone is not distinct from m.zone
             and (m.price_flag is not null) <> (p.spot_usd_per_hour >= p.on_demand_usd_per_hour)"""
    ).fetchall()
    assert mismatched == []


@pytest.fixture(scope="module")
def con_demo(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    yield con
    con.close()


def test_breakeven_spot_defaults_to_one_instances_spot_and_on_demand_prices(demo_warehouse):
    doc = cli_json(demo_warehouse, "breakeven", "spot", "--gpu", "H100")
    spot, on_demand = doc["spot_offer"], doc["on_demand_offer"]
    assert doc["rates_paired"] is True
    for key in ("provider", "region", "instance_type"):
        assert spot[key] == on_demand[key], key
    assert (spot["pricing_model"], on_demand["pricing_model"]) == ("spot", "on_demand")
    # the cheapest spot offer that has an on-demand price of its own
    first_pair = doc["same_instance_pairs"][0]
    assert spot["price_usd_per_gpu_hour"] == first_pair["spot_usd_per_gpu_hour"]
    assert on_demand["price_usd_per_gpu_hour"] == first_pair["on_demand_usd_per_gpu_hour"]


def test_the_cheapest_dots_say_which_provider_and_region_each_comes_from(con_demo):
    section = report.cheapest_section(con_demo, "H100")
    assert section.has_data
    for row in section.rows:
        assert f"{row['provider']} {row['region']}" in section.chart, row
    assert "from %{customdata}" in section.chart  # in each dot's hover text


def test_cost_per_token_says_a_70b_model_does_not_fit_one_24gb_gpu(con_counted):
    rows = con_counted.sql(
        """select instance_type, gpu_count, min_gpus_training, fits_training_on_instance,
                  min_gpus_serving, fits_serving_on_instance
           from cost_per_token(params_b := 70) where gpu_name = 'L4'"""
    ).fetchall()
    assert rows
    # training: 70e9 x 16 B = 1043.1 GiB -> 44 L4s; serving: 70e9 x 2 B x 1.2 = 156.5 GiB -> 7
    assert {r[2] for r in rows} == {44} == {memory_fit.min_gpus("training", 70e9, 24)}
    assert {r[4] for r in rows} == {7} == {memory_fit.min_gpus("serving", 70e9, 24)}
    assert not any(r[3] for r in rows)
    assert all(r[5] == (r[1] >= 7) for r in rows)
    assert any(r[5] for r in rows) and not all(r[5] for r in rows)


def test_cost_per_token_mart_states_the_largest_model_a_gpu_holds(con_demo):
    [(train, serve)] = con_demo.sql(
        """select distinct max_params_b_training_per_gpu, max_params_b_serving_per_gpu
           from mart_cost_per_token where gpu_name = 'H100' and gpu_memory_gib = 80"""
    ).fetchall()
    assert train == pytest.approx(80 * 2**30 / 16 / 1e9)  # 5.37 B parameters
    assert serve == pytest.approx(80 * 2**30 / 2.4 / 1e9)  # 35.8 B parameters


def test_serving_a_70b_model_is_priced_on_an_instance_that_holds_it(demo_counted_warehouse):
    doc = cli_json(
        demo_counted_warehouse, "estimate", "infer", "--params", "70e9", "--prompt-tokens", "1792",
        "--output-tokens", "256", "--requests", "1e6", "--gpu", "L4",
    )  # fmt: skip
    # 140 GB of weights + a 2,048-token KV cache over 0.9 x 24 GiB per GPU: 6.1, so a
    # tensor-parallel replica of 8 L4 (the fewest power of two)
    assert doc["memory_fit"]["min_gpus"] == 8
    assert doc["memory_fit"]["fits"] is True and doc["offer"]["gpu_count"] >= 8
    fits = [a["fits_memory"] for a in doc["alternatives"]]
    assert fits == sorted(fits, reverse=True)  # the ones that hold it first


def test_training_on_too_few_gpus_says_it_does_not_fit(demo_warehouse):
    args = ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"]
    doc = cli_json(demo_warehouse, *args, "--memory", "80", "--gpus", "8")
    fit = doc["memory_fit"]
    assert (fit["min_gpus"], fit["fits"]) == (math.ceil(70e9 * 16 / 2**30 / 80), False)
    text = cli(*args, "--memory", "80", "--gpus", "8", "--warehouse", demo_warehouse).stdout
    text = " ".join(text.split())  # the text wraps at the terminal's width
    assert "needs >= 14 GPU(s) of 80 GiB; --gpus = 8: DOES NOT FIT" in text
    ok = cli_json(demo_warehouse, *args, "--memory", "80", "--gpus", "1024")
    assert ok["memory_fit"]["fits"] is True


def test_rates_ranks_machines_like_estimate_and_marks_gpu_only_prices(demo_counted_warehouse):
    rates = cli_json(demo_counted_warehouse, "rates", "--gpu", "L4", "--pricing", "on_demand")
    assert rates["rates"] and all(r["host_included"] for r in rates["rates"])
    estimate = cli_json(
        demo_counted_warehouse, "estimate", "infer", "--params", "1e9", "--prompt-tokens", "50",
        "--output-tokens", "50", "--requests", "1", "--gpu", "L4",
    )  # fmt: skip
    first = rates["rates"][0]
    assert (first["provider"], first["region"], first["instance_type"]) == (
        estimate["offer"]["provider"],
        estimate["offer"]["region"],
        estimate["offer"]["instance_type"],
    )
    everything = cli_json(demo_counted_warehouse, "rates", "--gpu", "L4", "--include-gpu-only")
    gpu_only = [r for r in everything["rates"] if not r["host_included"]]
    assert gpu_only and all("GPU only" in r["note"] for r in gpu_only)
