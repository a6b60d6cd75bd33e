"""Nothing wrong is published silently: a quarantined value reaches no table, an implausible
price (below its GPU's floor, or a jump from the offer's last price) is quarantined with
its reason and never ranked, a GPU with no reference row is held back without stopping the
refresh, and a provider whose offers collapse keeps its previous ones unless accepted.

Each case plants the bad value into a copy of the bundled demo snapshot (real shapes) and
refreshes as the command line does (flows.pipeline), then reads the published marts."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from connectors import registry
from connectors.aws.parse_specs import bundled_specs
from connectors.kit.page import FetchContext
from connectors.kit.snapshot import DEMO_DIR
from flows import pipeline
from tests._cli import cli
from tests._warehouse import copy_warehouse
from warehouse.plausibility import Checks

pytestmark = pytest.mark.slow

SPOT = "aws/spot_price_history/eu-west-1-0001.json"


def _copy(tmp_path: Path) -> Path:
    root = tmp_path / "snap"
    shutil.copytree(DEMO_DIR, root)
    return root


def _edit(root: Path, rel: str, change) -> None:
    path = root / rel
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc, indent=1))


def _spot_point(root: Path, instance_type: str, price: str) -> None:
    """The newest point of one zone of `instance_type`, at `price`."""

    def change(doc):
        points = doc["body"]["SpotPriceHistory"]
        base = next(p for p in points if p["InstanceType"] == instance_type)
        points.insert(0, {**base, "SpotPrice": price, "Timestamp": "2026-11-20T01:59:00Z"})

    _edit(root, SPOT, change)


def _refresh(path: Path, snapshot: Path, **kw) -> pipeline.RunSummary:
    pages = {n: pipeline.fetch_pages(n, snapshot, FetchContext()) for n in registry.PROVIDERS}
    return pipeline.load_and_publish(path, pages, source=str(snapshot), **kw)


def _sql(path: Path, sql: str, **params):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(sql, params=params or None).fetchall()
    finally:
        con.close()


def _quarantined(path: Path, provider: str, like: str) -> list[str]:
    return [
        r[0]
        for r in _sql(
            path,
            "SELECT reason FROM quarantine WHERE provider = $p AND reason LIKE $l",
            p=provider,
            l=like,
        )
    ]


# -- quarantine means excluded, table by table ---------------------------------------------


def test_a_quarantined_spot_point_reaches_neither_fct_spot_prices_nor_the_stats(tmp_path):
    snap = _copy(tmp_path)
    _spot_point(snap, "p3.16xlarge", "123456789.0")
    wh = tmp_path / "w.duckdb"
    assert _refresh(wh, snap).exit_code == 0
    assert _quarantined(wh, "aws", "%sanity limit%")
    assert _sql(wh, "SELECT count(*) FROM fct_spot_prices WHERE price_usd_per_hour > 1e6") == [(0,)]
    (top,) = _sql(wh, "SELECT max(max_usd_per_hour_7d) FROM mart_spot_price_stats")[0]
    assert top < 1000
    assert _sql(
        wh, "SELECT count(*) FROM mart_gpu_offers_current WHERE price_usd_per_hour > 1e6"
    ) == [(0,)]


def test_a_quarantined_offer_reaches_no_offer_table(tmp_path):
    snap = _copy(tmp_path)

    def change(doc):
        items = doc["body"]["Items"]
        item = next(i for i in items if i["armSkuName"] == "Standard_ND96asr_v4")
        items.append({**item, "retailPrice": 99999.0, "unitPrice": 99999.0, "meterId": "x-1"})

    _edit(snap, "azure/retail_prices/eastus-0001.json", change)
    wh = tmp_path / "w.duckdb"
    assert _refresh(wh, snap).exit_code == 0
    assert _quarantined(wh, "azure", "%sanity limit%")
    for table in ("mart_gpu_offers_current", "fct_gpu_prices", "mart_cheapest_gpu_hour"):
        col = "price_usd_per_gpu_hour"
        assert _sql(wh, f"SELECT count(*) FROM {table} WHERE {col} > 200") == [(0,)], table


def test_every_declared_series_meets_the_point_checks():
    """The point checks read int_spot_prices_unioned: a connector's series table that does
    not feed it would escape them."""
    union = (
        Path(pipeline.sql_runner.SQL_DIR) / "intermediate/int_spot_prices_unioned.sql"
    ).read_text()
    series = [t.name for c in registry.PROVIDERS.values() for t, _ in c.series_tables]
    assert series
    assert [t for t in series if t not in union] == []


# -- plausibility: floors and jumps ----------------------------------------------------------


def test_a_price_below_its_gpus_floor_is_quarantined_not_ranked(tmp_path):
    snap = _copy(tmp_path)

    def azure(doc):  # a duplicated item at $0.0001/h (8 A100s: 1.25e-05 per GPU-hour)
        items = doc["body"]["Items"]
        item = next(
            i
            for i in items
            if i["armSkuName"] == "Standard_ND96asr_v4" and i["type"] == "Consumption"
        )
        items.append({**item, "retailPrice": 0.0001, "unitPrice": 0.0001})

    def hyperstack(doc):  # a duplicate RTX A4000 at $0.01/h
        rows = doc["body"]
        rows.append({**next(r for r in rows if r["name"] == "RTX-A4000"), "value": 0.01})

    _edit(snap, "azure/retail_prices/eastus-0001.json", azure)
    _edit(snap, "hyperstack/pricebook/pricebook-0001.json", hyperstack)
    _spot_point(snap, "p3.16xlarge", "0.000001")  # the cheapest V100 spot, 1.25e-07/GPU-h
    wh = tmp_path / "w.duckdb"
    summary = _refresh(wh, snap)
    assert summary.exit_code == 0
    for provider in ("azure", "hyperstack", "aws"):
        assert _quarantined(wh, provider, "%below the plausibility floor%"), provider
    cheapest = dict(
        _sql(
            wh,
            """SELECT gpu_name, min(price_usd_per_gpu_hour) FROM mart_cheapest_gpu_hour
               WHERE gpu_name IN ('A100', 'V100', 'RTX A4000') GROUP BY ALL""",
        )
    )
    assert cheapest["A100"] > 0.1 and cheapest["V100"] > 0.1 and cheapest["RTX A4000"] > 0.1
    assert _sql(
        wh, "SELECT count(*) FROM mart_gpu_offers_current WHERE price_usd_per_gpu_hour < 0.05"
    ) == [(0,)]
    assert _sql(wh, "SELECT count(*) FROM fct_spot_prices WHERE price_usd_per_hour < 0.001") == [
        (0,)
    ]


def test_the_floor_is_configurable(tmp_path):
    snap = _copy(tmp_path)

    def hyperstack(doc):
        rows = doc["body"]
        rows.append({**next(r for r in rows if r["name"] == "RTX-A4000"), "value": 0.01})

    _edit(snap, "hyperstack/pricebook/pricebook-0001.json", hyperstack)
    wh = tmp_path / "w.duckdb"
    _refresh(wh, snap, checks=Checks(floor_fraction=0.0))  # 0 disables the rule
    assert not _quarantined(wh, "hyperstack", "%floor%")
    assert _sql(
        wh,
        "SELECT min(price_usd_per_gpu_hour) FROM mart_gpu_offers_current WHERE gpu_name = 'RTX A4000'",
    ) == [(0.01,)]


def test_a_jump_from_the_offers_last_price_is_quarantined(tmp_path, azure_snapshot, demo_warehouse):
    wh = copy_warehouse(demo_warehouse, tmp_path / "w.duckdb")  # the demo night, refreshed
    key = "provider = 'azure' AND instance_type = 'Standard_ND96isr_H100_v5'"
    before = _sql(
        wh,
        f"SELECT pricing_model, price_usd_per_hour FROM mart_gpu_offers_current WHERE {key} "
        "AND pricing_model = 'on_demand' ORDER BY ALL",
    )
    assert before
    # every ND96isr H100 v5 price at 1/15 of itself the next night
    night2 = azure_snapshot("night2", h100_factor=1 / 15, fetched_at="2026-11-21T02:00:00Z")
    assert _refresh(wh, night2).exit_code == 0
    assert _quarantined(wh, "azure", "%times away from the offer's last price%")
    assert _sql(
        wh,
        f"SELECT count(*) FROM mart_gpu_offers_current WHERE {key} "
        f"AND price_usd_per_hour < {before[0][1] / 10}",
    ) == [(0,)]


# -- one unknown GPU never stops the night ---------------------------------------------------


def _plant_unknown_sheet_gpu(root: Path, gpu: str) -> None:
    sheet = root / "sheets" / "price_sheet" / "coreweave_2026-09-20.csv"
    rows = list(csv.DictReader(sheet.open()))
    rows.append({**rows[0], "instance_type": "zx9000-1", "gpu": gpu, "gpu_memory_gib": "48"})
    with sheet.open("w", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def test_a_sheet_gpu_the_shared_rule_cannot_name_is_published_unnamed_and_counted(tmp_path):
    """A sheet states the GPU in its own words; a GPU the rule (common/gpu.py) cannot name
    is never published under the sheet's spelling: no name, counted as unknown."""
    snap = _copy(tmp_path)
    _plant_unknown_sheet_gpu(snap, "ZX9000")  # no alias, no seed_gpu_specs row
    wh = tmp_path / "w.duckdb"
    summary = _refresh(wh, snap)
    assert summary.exit_code == 0  # the night goes on: every other offer publishes
    (sheets,) = [p for p in summary.providers if p.provider == "sheets"]
    assert sheets.unknown_gpu >= 1
    assert _sql(wh, "SELECT count(*) FROM mart_gpu_offers_current WHERE gpu_name = 'ZX9000'") == [
        (0,)
    ]
    assert _sql(
        wh, "SELECT gpu_name FROM mart_gpu_offers_current WHERE instance_type = 'zx9000-1'"
    ) in ([], [(None,)])
    assert _sql(wh, "SELECT count(*) FROM mart_gpu_offers_current WHERE provider = 'azure'")[0][0]


def test_an_aws_spot_point_of_an_instance_whose_gpu_has_no_reference_row(tmp_path):
    """The AWS case: an instance type the connector knows (connectors/aws/instance_types.csv,
    named by the shared GPU rule) whose GPU has no seed row yet; its spot offer and points
    are held back."""
    repo = DEMO_DIR.parent.parent
    known = {r["gpu_name"] for r in csv.DictReader((repo / "sql/seeds/seed_gpu_specs.csv").open())}
    listed = bundled_specs().iter_rows(named=True)
    orphan = next((r for r in listed if r["gpu_name"] and r["gpu_name"] not in known), None)
    if orphan is None:
        pytest.skip("every GPU of connectors/aws/instance_types.csv has a seed row")
    snap = _copy(tmp_path)
    _spot_point(snap, "p3.16xlarge", "8.0")

    def retype(doc):
        doc["body"]["SpotPriceHistory"][0]["InstanceType"] = orphan["instance_type"]

    _edit(snap, SPOT, retype)
    wh = tmp_path / "w.duckdb"
    summary = _refresh(wh, snap)
    assert summary.exit_code == 0
    (aws,) = [p for p in summary.providers if p.provider == "aws"]
    assert any(orphan["gpu_name"] in n for n in aws.notes)
    assert _sql(
        wh,
        "SELECT count(*) FROM fct_spot_prices WHERE instance_type = $t",
        t=orphan["instance_type"],
    ) == [(0,)]


# -- a collapsing provider keeps its previous offers -----------------------------------------


def test_a_provider_whose_offers_collapse_keeps_them_unless_accepted(
    tmp_path, azure_snapshot, monkeypatch, demo_warehouse
):
    wh = copy_warehouse(demo_warehouse, tmp_path / "w.duckdb")  # the demo night, refreshed
    count = "SELECT count(*) FROM mart_gpu_offers_current WHERE provider = 'azure'"
    (before,) = _sql(wh, count)[0]
    thin = azure_snapshot("thin", keep_items=1, fetched_at="2026-11-21T02:00:00Z")
    summary = _refresh(wh, thin)
    assert summary.exit_code == 1
    (azure,) = [p for p in summary.providers if p.provider == "azure"]
    assert azure.status == "failed"
    (line,) = azure.failed
    assert "offers fell from" in line and "--accept-drop azure" in line
    assert _sql(wh, count) == [(before,)]
    # accepted on the command line (the same refresh a user runs)
    monkeypatch.setenv("PREFECT_HOME", str(tmp_path / "prefect"))
    monkeypatch.delenv("PREFECT_API_URL", raising=False)
    args = ["refresh", "--warehouse", wh, "--snapshot", thin, "--providers", "azure"]
    assert cli(*args, "--accept-drop", "azure").exit_code == 0
    assert _sql(wh, count)[0][0] < before / 2
