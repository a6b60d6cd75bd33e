"""AWS through the whole refresh (pipeline.load_and_publish, each test its own DuckDB
file): the incremental spot history, and the demo snapshot's marts and CLI output."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import boto3
import duckdb
import polars as pl
import pytest
from botocore.stub import Stubber
from typer.testing import CliRunner

from connectors.aws import fetch
from connectors.errors import UnexpectedResponse
from connectors.kit.http import RetryPolicy
from connectors.kit.page import FetchContext, FetchFailure
from flows import pipeline
from gpu_pricing.cli import app
from samples.aws import aws_instance_type_item, aws_spot_price_item
from warehouse import checks, db, staging

FAST = RetryPolicy(attempts=2, backoff_s=0.001, max_backoff_s=0.001)
T0 = datetime(2026, 11, 18, 0, 0)


def at(hours: float) -> datetime:
    return T0 + timedelta(hours=hours)


def iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def write_spot_snapshot(root: Path, points: list[tuple[str, str, datetime]]) -> Path:
    folder = root / "aws" / "spot_price_history"
    folder.mkdir(parents=True)
    body = {
        "SpotPriceHistory": [
            aws_spot_price_item(zone, "p4d.24xlarge", price, iso(moment))
            for zone, price, moment in points
        ],
        "NextToken": "",
    }
    page = {
        "fetched_at": iso(max(m for _, _, m in points) + timedelta(minutes=5)),
        "request": {"region": "us-east-1", "StartTime": iso(T0), "page": 1},
        "body": body,
    }
    (folder / "us-east-1-0001.json").write_text(json.dumps(page))
    return root


def stored_points(path: Path) -> list[tuple]:
    con = db.connect_readonly(path)
    try:
        return db.run(
            con,
            """SELECT zone, price_usd_per_hour, observed_at, load_id FROM stg_aws__spot_prices
               ORDER BY observed_at, zone""",
        )
    finally:
        con.close()


FIRST = [
    ("us-east-1a", "10.100000", at(1)),
    ("us-east-1b", "10.400000", at(2)),
    ("us-east-1a", "10.900000", at(7)),
    ("us-east-1b", "11.200000", at(9.5)),
]


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_second_refresh_stores_exactly_the_new_points_and_asks_from_the_watermark(tmp_path):
    path = tmp_path / "w.duckdb"
    snap = write_spot_snapshot(tmp_path / "snap1", FIRST)
    pipeline.load_and_publish(
        path, {"aws": pipeline.fetch_pages("aws", snap, FetchContext())}, source="snap1"
    )
    assert len(stored_points(path)) == 4
    marks = staging.watermarks(path, "aws")
    assert marks[("spot_price_history", "us-east-1")] == at(9.5)  # newest point, not load time

    # the nightly walk: AWS answers from the watermark, repeating the prices in effect then
    client = boto3.client(
        "ec2", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    pricing = boto3.client(
        "pricing", region_name="us-east-1", aws_access_key_id="t", aws_secret_access_key="t"
    )
    new = [("us-east-1a", "9.800000", at(11)), ("us-east-1b", "11.000000", at(12.25))]
    repeated = [("us-east-1a", "10.900000", at(7)), ("us-east-1b", "11.200000", at(9.5))]
    response = {
        "SpotPriceHistory": [
            {
                "AvailabilityZone": zone,
                "InstanceType": "p4d.24xlarge",
                "ProductDescription": "Linux/UNIX",
                "SpotPrice": price,
                "Timestamp": moment.replace(tzinfo=UTC),
            }
            for zone, price, moment in new + repeated
        ],
        "NextToken": "",
    }
    ec2_stub, pricing_stub = Stubber(client), Stubber(pricing)
    ec2_stub.add_response(
        "describe_instance_types",
        {
            "InstanceTypes": [
                aws_instance_type_item(
                    instance_type="p4d.24xlarge",
                    vcpus=96,
                    memory_mib=1179648,
                    gpu_name="A100",
                    gpu_count=8,
                    gpu_memory_mib=40960,
                )
            ]
        },
    )
    ec2_stub.add_response(
        "describe_spot_price_history",
        response,
        {
            "StartTime": at(9.5).replace(tzinfo=UTC),
            "ProductDescriptions": ["Linux/UNIX"],
            "Filters": [{"Name": "instance-type", "Values": ["p*", "g*", "trn*", "inf*", "dl*"]}],
            "MaxResults": 1000,
        },
    )
    for _ in range(2):
        pricing_stub.add_response("get_products", {"FormatVersion": "aws_v1", "PriceList": []})
    ec2_stub.activate()
    pricing_stub.activate()

    class Clients:
        def ec2(self, region):
            return client

        def pricing(self):
            return pricing

    live = list(
        fetch.fetch_credentialed(
            FetchContext(watermarks=marks, settings={"aws_capacity_block_types": {}}),
                ("us-east-1",),
                Clients(),
                now=at(13),
                policy=FAST,
        )
    )
    ec2_stub.assert_no_pending_responses()
    summary = pipeline.load_and_publish(path, {"aws": live}, source="live")
    assert summary.exit_code == 0

    points = stored_points(path)
    assert len(points) == 6  # exactly the two new points were added
    assert len({(z, o) for z, _, o, _ in points}) == 6
    newest = {(z, o): load for z, _, o, load in points}
    assert newest[("us-east-1a", at(11))] != newest[("us-east-1a", at(7))]  # new load, old kept
    assert staging.watermarks(path, "aws")[("spot_price_history", "us-east-1")] == at(12.25)

    con = db.connect_readonly(path)
    try:
        spot = db.query(
            con,
            """SELECT zone, price_usd_per_hour, price_flag FROM mart_gpu_offers_current
               WHERE provider = 'aws' AND pricing_model = 'spot' ORDER BY zone""",
        )
        series = db.run(con, "SELECT count(*) FROM fct_spot_prices WHERE provider = 'aws'")
    finally:
        con.close()
    assert spot["price_usd_per_hour"].to_list() == [9.8, 11.0]  # the newest point per zone
    assert series[0][0] == 6


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_rerun_of_the_same_snapshot_adds_no_points_or_history(tmp_path):
    path = tmp_path / "w.duckdb"
    snap = write_spot_snapshot(tmp_path / "snap", FIRST)
    for _ in range(2):
        summary = pipeline.load_and_publish(
            path, {"aws": pipeline.fetch_pages("aws", snap, FetchContext())}, source="snap"
        )
    assert len(stored_points(path)) == 4
    assert summary.history == {"opened": 0, "closed": 0}


def test_offer_csv_watermark_is_the_stored_file_version(demo_warehouse):
    marks = staging.watermarks(demo_warehouse, "aws")
    assert marks[("offer_csv", "eu-west-1")] == datetime(2026, 11, 18, 17, 0)


def test_every_provider_s_watermarks_are_read_on_one_connection(demo_warehouse, monkeypatch):
    from warehouse import db

    one_by_one = {name: staging.watermarks(demo_warehouse, name) for name in ("aws", "azure")}
    opened = []
    connect = db.connect_readonly
    monkeypatch.setattr(db, "connect_readonly", lambda p: opened.append(p) or connect(p))
    assert staging.watermarks_of(demo_warehouse, ["aws", "azure"]) == one_by_one
    assert opened == [demo_warehouse]
    assert staging.watermarks_of(demo_warehouse.with_name("none.duckdb"), ["aws"]) == {"aws": {}}


def test_a_snapshot_replay_reads_no_watermark(demo_warehouse, monkeypatch):
    """A replay fetches nothing: where a live fetch would start is not read (opening the
    warehouse for it cost more than a small refresh's own work); a live run reads them."""
    import logging

    from flows import direct

    given = {}

    class Stop(Exception):
        pass

    def fetch(contexts, snapshot, log):
        given[snapshot] = contexts
        raise Stop

    steps = direct.Steps(log=lambda: logging.getLogger("t"), fetch=fetch,
                         load_and_publish=None, publish=None)  # fmt: skip
    read = []
    watermarks_of = staging.watermarks_of
    monkeypatch.setattr(staging, "watermarks_of", lambda *a: read.append(a) or watermarks_of(*a))
    for snapshot in ("demo", None):
        with pytest.raises(Stop):
            direct.run_refresh(str(demo_warehouse), snapshot, ["aws"], None, None, steps=steps)
    assert given["demo"]["aws"].watermarks == {} and len(read) == 1
    assert given[None]["aws"].watermarks == staging.watermarks(demo_warehouse, "aws") != {}


# --- the demo snapshot ------------------------------------------------------------------------

runner = CliRunner()


def cli(*args: str):
    return runner.invoke(app, list(args), catch_exceptions=False)


def test_history_of_a100_spot_is_the_per_zone_series_of_the_demo(demo_counted_warehouse):
    # the demo's spot points are invented (illustrative: no history shows them); this reads
    # them as a provider's own, as a live AWS series is
    result = cli(
        "history",
        "--gpu",
        "A100",
        "--pricing",
        "spot",
        "--json",
        "--warehouse",
        str(demo_counted_warehouse),
    )
    assert result.exit_code == 0, result.stderr
    rows = [r for r in json.loads(result.stdout)["history"] if r["provider"] == "aws"]
    zones = {(r["region"], r["zone"], r["instance_type"]) for r in rows}
    assert ("us-east-1", "us-east-1a", "p4d.24xlarge") in zones
    assert ("us-west-2", "us-west-2c", "p4de.24xlarge") in zones
    one = [r for r in rows if (r["zone"], r["instance_type"]) == ("us-east-1a", "p4d.24xlarge")]
    assert len(one) > 14  # 14 days of a few changes a day
    times = [r["observed_at"] for r in one]
    assert times == sorted(times) and len(set(times)) == len(times)
    assert all(r["gpu_name"] == "A100" and r["price_usd_per_gpu_hour"] for r in rows)
    first = one[0]
    assert first["price_usd_per_gpu_hour"] == pytest.approx(first["price_usd_per_hour"] / 8)


def test_spot_price_stats_have_quantiles_discount_and_interruption_bucket(demo_counted_warehouse):
    con = duckdb.connect(str(demo_counted_warehouse), read_only=True)
    try:
        row = db.query(
            con,
            """SELECT * FROM mart_spot_price_stats
               WHERE provider = 'aws' AND region = 'us-east-1' AND instance_type = 'p4d.24xlarge'""",
        ).row(0, named=True)
        p5e = db.query(
            con,
            """SELECT on_demand_usd_per_hour, spot_discount_pct, spot_usd_per_hour_now
               FROM mart_spot_price_stats WHERE instance_type = 'p5e.48xlarge'""",
        ).row(0, named=True)
    finally:
        con.close()
    for days in (7, 30, 90):
        lo, p50, p95, hi = (row[f"{s}_usd_per_hour_{days}d"] for s in ("min", "p50", "p95", "max"))
        assert 0 < lo <= p50 <= p95 <= hi
        assert row[f"stddev_usd_per_hour_{days}d"] > 0
    assert row["points_7d"] < row["points_30d"]
    assert row["as_of"] <= datetime(2026, 11, 20, 2)
    assert (row["interruption_bucket"], row["interruption_rate_max_pct"]) == ("10-15%", 15)
    assert row["on_demand_usd_per_hour"] == 32.7726
    assert row["spot_discount_pct"] == pytest.approx(
        100 * (1 - row["spot_usd_per_hour_now"] / 32.7726)
    )
    # capacity blocks only: spot is there, no on-demand price and so no discount
    assert p5e["spot_usd_per_hour_now"] > 0
    assert p5e["on_demand_usd_per_hour"] is None and p5e["spot_discount_pct"] is None


def test_rates_for_h100_show_aws_and_azure_side_by_side(demo_warehouse):
    result = cli(
        "rates", "--gpu", "H100", "--json", "--limit", "500", "--include-illustrative",
        "--warehouse", str(demo_warehouse),
    )  # fmt: skip
    rows = json.loads(result.stdout)["rates"]
    assert {"aws", "azure"} <= {r["provider"] for r in rows}
    p5 = [
        r
        for r in rows
        if (r["provider"], r["region"], r["instance_type"], r["pricing_model"])
        == ("aws", "us-east-1", "p5.48xlarge", "on_demand")
    ]
    assert p5[0]["price_usd_per_gpu_hour"] == pytest.approx(98.32 / 8)
    assert p5[0]["provenance"] == "api"  # AWS's 2024 list price: a real value


def test_demo_p4d_on_demand_is_4_0966_per_gpu_hour_and_traceable(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        row = db.query(
            con,
            """SELECT m.*, l.endpoint AS load_endpoint FROM mart_gpu_offers_current m
               JOIN _loads l USING (load_id)
               WHERE m.provider = 'aws' AND m.region = 'us-east-1'
                 AND m.instance_type = 'p4d.24xlarge' AND m.pricing_model = 'on_demand'""",
        ).row(0, named=True)
        flagged = db.run(
            con,
            """SELECT instance_type, zone FROM mart_gpu_offers_current
               WHERE provider = 'aws' AND price_flag = 'spot_equals_on_demand'""",
        )
    finally:
        con.close()
    assert row["price_usd_per_hour"] == 32.7726
    assert round(row["price_usd_per_gpu_hour"], 4) == 4.0966
    assert row["load_endpoint"] == "price_list"
    assert flagged == [("p3.16xlarge", "us-west-2c")]


def test_spot_point_uniqueness_assertion_catches_a_duplicate():
    from connectors.aws.parse import SPOT_PRICES

    sql = (
        Path(__file__).parents[3] / "sql" / "tests" / "assert_spot_points_unique.sql"
    ).read_text()
    con = duckdb.connect()
    db.run(con, SPOT_PRICES.ddl)
    row = "('aws', 'us-east-1', 'us-east-1a', 'g5.xlarge', 'Linux/UNIX', 0.4, TIMESTAMP '2026-11-19 01:00', 'spot_price_history', '{load}', TIMESTAMP '2026-11-20 02:00', 'api')"
    checks.use_scope(con, scoped=False)  # a full check: every point
    db.run(con, f"INSERT INTO stg_aws__spot_prices VALUES {row.format(load='l1')}")
    assert db.run(con, sql) == []
    db.run(con, f"INSERT INTO stg_aws__spot_prices VALUES {row.format(load='l1')}")
    assert len(db.run(con, sql)) == 1
    # a refresh's check covers its own loads: a stored duplicate is the full check's
    checks.scope(con, ["l2"])
    checks.use_scope(con, scoped=True)
    assert db.run(con, sql) == []
    # a new point repeating a stored one is found, though the stored one is not checked
    db.run(con, f"INSERT INTO stg_aws__spot_prices VALUES {row.format(load='l2')}")
    assert db.run(con, sql) == [("us-east-1", "us-east-1a", "g5.xlarge", datetime(2026, 11, 19, 1), 3)]


def test_spot_point_uniqueness_assertion_is_a_group_by_of_the_checked_keys():
    """The assertion groups by the keys' hashes first: its failures are still exactly the
    keys of the checked points stored more than once, each with its count, as a plain
    GROUP BY of every stored point says (a full check, and a night's scoped one)."""
    from connectors.aws.parse import SPOT_PRICES

    sql = (
        Path(__file__).parents[3] / "sql" / "tests" / "assert_spot_points_unique.sql"
    ).read_text()
    con = duckdb.connect()
    db.run(con, SPOT_PRICES.ddl)
    # 3,000 points over 40 series and 100 times, then repeats: some stored points again
    # (load l1, twice for a few), some repeated by the night's load l2
    db.run(con, """
        INSERT INTO stg_aws__spot_prices
        SELECT 'aws', 'r' || (i % 4), 'z' || (i % 8), 't' || (i % 5), 'Linux/UNIX', 1 + i,
               TIMESTAMP '2026-11-01' + to_minutes((i // 40)::BIGINT), 'spot_price_history',
               'l1', TIMESTAMP '2026-11-20', 'api'
        FROM range(3000) r(i)""")  # fmt: skip
    db.run(con, """INSERT INTO stg_aws__spot_prices
                   SELECT * FROM stg_aws__spot_prices WHERE price_usd_per_hour % 97 = 0""")
    db.run(con, """INSERT INTO stg_aws__spot_prices
                   SELECT * FROM stg_aws__spot_prices WHERE price_usd_per_hour % 388 = 0""")
    db.run(con, """INSERT INTO stg_aws__spot_prices
                   SELECT * REPLACE ('l2' AS load_id) FROM stg_aws__spot_prices
                   WHERE price_usd_per_hour % 301 = 0 AND load_id = 'l1'""")
    reference = """
        SELECT region, zone, instance_type, observed_at, count(*) AS n
        FROM stg_aws__spot_prices t
        WHERE (region, zone, instance_type, observed_at) IN (
            SELECT (region, zone, instance_type, observed_at) FROM stg_aws__spot_prices
            WHERE checked_load(load_id))
        GROUP BY ALL HAVING count(*) > 1 ORDER BY ALL"""
    checks.use_scope(con, scoped=False)
    expected = db.run(con, reference)
    assert len(expected) > 30 and {2, 4} <= {n for *_, n in expected}
    assert db.run(con, f"SELECT * FROM ({sql}) ORDER BY ALL") == expected
    checks.scope(con, ["l2"])
    checks.use_scope(con, scoped=True)
    night = db.run(con, reference)
    assert 0 < len(night) < len(expected)
    assert db.run(con, f"SELECT * FROM ({sql}) ORDER BY ALL") == night


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_new_spot_page_is_parsed_alone_and_a_parser_change_re_parses_the_history(
    tmp_path, monkeypatch
):
    path = tmp_path / "w.duckdb"
    night1 = write_spot_snapshot(tmp_path / "night1", FIRST)
    # the next walk starts at the watermark: AWS repeats the points in effect then
    night2 = write_spot_snapshot(
        tmp_path / "night2",
        [
            ("us-east-1a", "10.900000", at(7)),
            ("us-east-1b", "11.200000", at(9.5)),
            ("us-east-1a", "9.800000", at(11)),
            ("us-east-1b", "11.000000", at(12.25)),
        ],
    )
    read: list[int] = []  # spot pages read back from the raw store, per refresh
    with_payloads = pipeline.raw.with_payloads

    def spy(index, store):
        read.append(index.filter(pl.col("endpoint") == "spot_price_history").height)
        return with_payloads(index, store)

    monkeypatch.setattr(pipeline.raw, "with_payloads", spy)

    def refresh(snap: Path) -> None:
        summary = pipeline.load_and_publish(
            path, {"aws": pipeline.fetch_pages("aws", snap, FetchContext())}, source=str(snap)
        )
        assert summary.exit_code == 0

    def staged() -> tuple[list[tuple], list[tuple]]:
        con = db.connect_readonly(path)
        try:
            offers = db.run(
                con,
                """SELECT zone, price_usd_per_hour, effective_at, load_id, fetched_at
                   FROM stg_aws__offers WHERE pricing_model = 'spot' ORDER BY zone""",
            )
        finally:
            con.close()
        return stored_points(path), offers

    refresh(night1)
    refresh(night2)
    assert read == [1, 1]  # the second refresh parsed its one new page, not the history
    points, offers = staged()
    assert len(points) == 6  # the repeated points are staged once, from the first night
    assert [o[1] for o in offers] == [9.8, 11.0]  # the newest point of each zone

    # a parser change (another code digest): the whole history is parsed again, to the
    # very same staged points and offers (load ids included)
    monkeypatch.setattr(staging, "code_digest", lambda name: "a parser fix")
    refresh(night2)
    assert read == [1, 1, 2]
    assert staged() == (points, offers)

    # and a warehouse that parsed both nights whole agrees
    monkeypatch.undo()
    full = tmp_path / "full.duckdb"
    for snap in (night1, night2):
        monkeypatch.setattr(staging, "code_digest", lambda name, s=snap: str(s))
        pipeline.load_and_publish(
            full, {"aws": pipeline.fetch_pages("aws", snap, FetchContext())}, source=str(snap)
        )
    night_of = {load: n for n, load in enumerate(sorted({p[3] for p in points}))}
    full_points = stored_points(full)
    full_night = {load: n for n, load in enumerate(sorted({p[3] for p in full_points}))}
    assert set(night_of.values()) == {0, 1}
    assert [(*p[:3], night_of[p[3]]) for p in points] == [
        (*p[:3], full_night[p[3]]) for p in full_points
    ]


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_page_first_landed_by_a_failed_load_is_parsed_when_a_good_load_lists_it(tmp_path):
    path = tmp_path / "w.duckdb"
    night1 = write_spot_snapshot(tmp_path / "night1", FIRST)
    night2 = write_spot_snapshot(
        tmp_path / "night2",
        [("us-east-1a", "9.800000", at(11)), ("us-east-1b", "11.000000", at(12.25))],
    )
    (west,) = pipeline.fetch_pages(
        "aws", write_spot_snapshot(tmp_path / "west", [("us-west-2a", "5.000000", at(3))]),
        FetchContext(),
    )
    west = dataclasses.replace(west, request={**west.request, "region": "us-west-2"}, _sha=[])

    def refresh(pages: list) -> None:
        pipeline.load_and_publish(path, {"aws": pages}, source="test")

    refresh(pipeline.fetch_pages("aws", night1, FetchContext()))
    # us-east-1's walk lands its page, then fails; us-west-2's succeeds, so AWS is re-staged
    # without the failed load's page
    failure = FetchFailure(
        "aws", "spot_price_history", "us-east-1", UnexpectedResponse("aws", "x", "HTTP 503")
    )
    refresh([*pipeline.fetch_pages("aws", night2, FetchContext()), failure, west])
    assert len(stored_points(path)) == 5
    # the next walk brings the very same page: stored already, parsed never
    refresh(pipeline.fetch_pages("aws", night2, FetchContext()))
    assert {(z, o) for z, _, o, _ in stored_points(path)} >= {
        ("us-east-1a", at(11)),
        ("us-east-1b", at(12.25)),
    }
    assert len(stored_points(path)) == 7
