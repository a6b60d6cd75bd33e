"""The connector contract (connectors/kit/connector.py, connectors/kit/page.py): the pages frame
is one declared schema built by one function, `Connector.parse` returns one typed result
checked against what the connector declares, and a declared time series is staged and
fetched incrementally by the refresh without the pipeline knowing its columns."""

from __future__ import annotations

import dataclasses
import json
import shutil
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest

from common.schemas import OFFER_SCHEMA
from connectors import registry
from connectors.kit.connector import (
    APPEND,
    ContractError,
    Parsed,
    Series,
    StagedTable,
)
from connectors.kit.normalise import normalise
from connectors.kit.page import PAGES_SCHEMA, FetchContext, Page, pages_frame
from connectors.kit.snapshot import DEMO_DIR, read_provider
from connectors.lambdalabs import parse as lambda_parse
from connectors.lambdalabs.settings import ENDPOINT as LAMBDA_ENDPOINT
from flows import pipeline
from warehouse import db, staging

AT = datetime(2026, 11, 20, 2)

# --- the pages frame --------------------------------------------------------------------


def test_pages_frame_from_pages_has_the_declared_schema_and_the_stored_body_text():
    pages = [
        Page("x", "prices", AT, {"region": "eu", "page": 2}, body={"b": [1, 2]}),
        Page("x", "prices", AT, {}, text='{"a": 1}', source_url="https://example.com/p"),
    ]
    frame = pages_frame(pages, load_ids=["l1", "l2"])
    assert frame.schema == PAGES_SCHEMA
    assert frame.rows() == [
        ("prices", "l1", AT, "eu", None, '{"page":2,"region":"eu"}', '{"b":[1,2]}'),
        ("prices", "l2", AT, "", "https://example.com/p", "{}", '{"a": 1}'),
    ]
    assert pages_frame(pages)["load_id"].to_list() == ["load-0", "load-1"]
    assert pages_frame([]).schema == PAGES_SCHEMA


def test_pages_frame_from_the_ledger_keeps_the_declared_columns_in_order():
    ledger = pl.DataFrame(
        {
            "payload": ['{"a":1}'],
            "sha256": ["ab"],
            "endpoint": ["prices"],
            "load_id": ["l1"],
            "fetched_at": [AT],
            "scope": ["eu"],
            "source_url": [None],
            "request": ["{}"],
            "payload_bytes": [7],
        },
        schema_overrides={"source_url": pl.String},
    )
    frame = pages_frame(ledger)
    assert frame.schema == PAGES_SCHEMA
    assert frame.row(0) == ("prices", "l1", AT, "eu", None, "{}", '{"a":1}')


def test_pages_frame_names_a_missing_column():
    with pytest.raises(ValueError, match=r"\['payload'\]"):
        pages_frame(pages_frame([]).drop("payload"))
    with pytest.raises(ValueError, match="2 pages but 1 load ids"):
        pages_frame([Page("x", "e", AT, {}, body=1)] * 2, load_ids=["l"])


def test_a_connector_refuses_a_frame_not_built_by_pages_frame():
    lambdalabs = registry.get("lambdalabs")
    frame = pages_frame(read_provider(DEMO_DIR, "lambdalabs"))
    with pytest.raises(ContractError, match="pages_frame"):
        lambdalabs.parse(frame.drop("request"))
    with pytest.raises(ContractError, match="pages_frame"):
        lambdalabs.parse(frame.with_columns(pl.col("fetched_at").cast(pl.Datetime("ns"))))


# --- the typed result ---------------------------------------------------------------------


def test_parsed_offers_have_exactly_the_canonical_columns_and_the_raw_item():
    raw = pl.DataFrame(
        {
            "provider": ["x"],
            "gpu_count": [8],  # an integer: cast to the declared Float64
            "_working": [1],  # a parse's own working column: not part of the result
            "_item": [{"k": "v"}],
        }
    )
    offers = Parsed(raw).offers
    assert offers.columns == [*OFFER_SCHEMA, "_item"]
    assert offers.schema == pl.Schema({**OFFER_SCHEMA, "_item": pl.Struct({"k": pl.String})})
    assert offers.row(0, named=True) | {"_item": None} == {
        **dict.fromkeys(OFFER_SCHEMA), "provider": "x", "gpu_count": 8.0, "_item": None,
        "source_currency": "USD", "status": "ok",  # the kit's parse-tail defaults
    }  # fmt: skip
    assert offers["_item"].to_list() == [{"k": "v"}]
    with pytest.raises(pl.exceptions.InvalidOperationError):
        Parsed(raw.with_columns(price_usd_per_hour=pl.lit("not a price")))  # strict cast


def test_the_parse_tail_defaults_come_from_the_kit():
    """A parse states what its source says; the kit adds the rest: USD when no currency
    is named, a null zone, the status and reason from the `_excluded` / `_rejected`
    reason columns (an exclusion wins), and the per-GPU-hour price (in normalise)."""
    raw = pl.DataFrame(
        {
            "provider": ["x", "x", "x", "x"],
            "gpu_count": [8.0, 1.0, 2.0, 4.0],
            "price_usd_per_hour": [16.0, 2.0, 3.0, 4.0],
            "_excluded": [None, "CPU only", "CPU only", None],
            "_rejected": [None, None, "bad price", "bad price"],
        }
    )
    offers = Parsed(raw).offers
    assert offers.select("status", "reason", "source_currency", "zone").rows() == [
        ("ok", None, "USD", None),
        ("excluded", "CPU only", "USD", None),
        ("excluded", "CPU only", "USD", None),
        ("rejected", "bad price", "USD", None),
    ]
    euro = Parsed(raw.with_columns(source_currency=pl.lit("EUR"))).offers
    assert euro["source_currency"].unique().to_list() == ["EUR"]  # a named currency stays
    # a status the parse set itself, with no reason columns, is kept
    own = Parsed(raw.drop("_excluded", "_rejected").with_columns(status=pl.lit("excluded"))).offers
    assert own["status"].unique().to_list() == ["excluded"]
    # the division is normalise's, from the machine's price and its GPU count
    per_gpu = normalise(raw.drop("_excluded", "_rejected").with_columns(
        region=pl.lit("r"), instance_type=pl.lit("i"), pricing_model=pl.lit("on_demand"),
        load_id=pl.lit("l"), endpoint=pl.lit("e"), gpu_name=pl.lit("H100"),
    )).offers["price_usd_per_gpu_hour"].to_list()  # fmt: skip
    assert per_gpu == [2.0, 2.0, 1.5, 1.0]


TICKS = StagedTable(
    "stg_newcloud__ticks",
    pl.Schema(
        {
            "area": pl.String(),
            "series_id": pl.String(),
            "seen_at": pl.Datetime("us"),
            "value": pl.Float64(),
            "load_id": pl.String(),
        }
    ),
    not_null=frozenset({"area", "series_id", "seen_at", "load_id"}),
    series=Series(
        endpoint="ticks",
        key=("area", "series_id", "seen_at"),
        series=("area", "series_id"),
        time="seen_at",
        scope="area",
    ),
)
TICK_PAGE = pl.Struct(
    {"points": pl.List(pl.Struct({"series": pl.String, "at": pl.String, "value": pl.Float64}))}
)


def ticks(pages: pl.DataFrame) -> pl.DataFrame:
    """One row per point of the `ticks` pages, the first load that brought it kept."""
    return (
        pages.filter(pl.col("endpoint") == "ticks")
        .select(
            pl.col("scope").alias("area"),
            "load_id",
            pl.col("payload").str.json_decode(TICK_PAGE).struct.field("points").alias("p"),
        )
        .explode("p")
        .unnest("p")
        .select(
            "area",
            pl.col("series").alias("series_id"),
            pl.col("at").str.to_datetime("%Y-%m-%dT%H:%M:%S", time_unit="us").alias("seen_at"),
            "value",
            "load_id",
        )
        .sort("load_id")
        .unique(["area", "series_id", "seen_at"], keep="first", maintain_order=True)
    )


def newcloud(calls: list[tuple[int, dict[str, pl.DataFrame]]], **changes):
    """Lambda's connector under a new name, with a `ticks` time series staged besides its
    offers; `calls` records, per parse, how many tick pages it read and its `latest`."""

    def parse_pages(pages, latest):
        calls.append(
            ((pages["endpoint"] == "ticks").sum(), {k: v.sort(v.columns) for k, v in latest.items()})
        )
        offers = lambda_parse.parse(pages.filter(pl.col("endpoint") == LAMBDA_ENDPOINT))
        return Parsed(offers, {TICKS.name: ticks(pages)})

    declared = {
        "name": "newcloud",
        "endpoints": {LAMBDA_ENDPOINT: "snapshot", "ticks": APPEND},
        "parse_pages": parse_pages,
        "staged": (TICKS,),
    }
    return dataclasses.replace(registry.get("lambdalabs"), **{**declared, **changes})


def test_a_parse_result_must_hold_exactly_the_declared_tables_in_their_columns():
    frame = pages_frame(read_provider(DEMO_DIR, "lambdalabs"))
    connector = newcloud([])
    parsed = connector.parse(frame)
    assert set(parsed.staged) == {TICKS.name}
    assert parsed.staged[TICKS.name].schema == TICKS.columns

    def undeclared(pages, latest):
        return Parsed(lambda_parse.parse(pages), {TICKS.name: ticks(pages), "stg_newcloud__x": pages})

    with pytest.raises(ContractError, match=r"stg_newcloud__x"):
        dataclasses.replace(connector, parse_pages=undeclared).parse(frame)

    def drifted(pages, latest):
        return Parsed(lambda_parse.parse(pages), {TICKS.name: ticks(pages).drop("value")})

    with pytest.raises(ContractError, match=r"without column\(s\) \['value'\]"):
        dataclasses.replace(connector, parse_pages=drifted).parse(frame)
    with pytest.raises(ContractError, match="not Parsed"):
        dataclasses.replace(connector, parse_pages=lambda p, _: lambda_parse.parse(p)).parse(frame)


def test_declarations_that_cannot_hold_are_refused_when_the_connector_is_built():
    with pytest.raises(ValueError, match="unknown column"):
        dataclasses.replace(TICKS, not_null=frozenset({"nope"}))
    with pytest.raises(ValueError, match="not one of its APPEND endpoints"):
        newcloud([], endpoints={LAMBDA_ENDPOINT: "snapshot", "ticks": "snapshot"})
    with pytest.raises(ValueError, match="in batches"):
        newcloud([], batched_endpoint="ticks")
    with pytest.raises(ValueError, match=r"stg_othercloud__\*"):
        newcloud([], name="othercloud")  # another connector's name on the same tables


def test_a_declared_table_is_created_with_its_declared_types_and_constraints():
    con = duckdb.connect()
    db.run(con, TICKS.ddl)
    columns = db.run(
        con,
        """SELECT column_name, data_type, is_nullable FROM information_schema.columns
           WHERE table_name = 'stg_newcloud__ticks' ORDER BY ordinal_position""",
    )
    assert columns == [
        ("area", "VARCHAR", "NO"),
        ("series_id", "VARCHAR", "NO"),
        ("seen_at", "TIMESTAMP", "NO"),
        ("value", "DOUBLE", "YES"),
        ("load_id", "VARCHAR", "NO"),
    ]
    keyed = dataclasses.replace(TICKS, primary_key=("area", "series_id", "seen_at"), series=None)
    assert "PRIMARY KEY (area, series_id, seen_at)" in keyed.ddl


# --- a declared time series through the refresh ----------------------------------------------


def snapshot(root: Path, points: list[tuple[str, str, float]], fetched: str) -> Path:
    shutil.copytree(DEMO_DIR / "lambdalabs", root / "newcloud")
    folder = root / "newcloud" / "ticks"
    folder.mkdir()
    page = {
        "fetched_at": fetched,
        "request": {"region": "north"},
        "body": {"points": [{"series": s, "at": at, "value": v} for s, at, v in points]},
    }
    (folder / "north-0001.json").write_text(json.dumps(page))
    return root


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_declared_series_is_appended_and_watermarked_without_the_pipeline_knowing_it(
    tmp_path, monkeypatch
):
    calls: list[tuple[int, dict[str, pl.DataFrame]]] = []
    monkeypatch.setitem(registry.PROVIDERS, "newcloud", newcloud(calls))
    path = tmp_path / "w.duckdb"

    def refresh(snap: Path) -> None:
        fetched = {"newcloud": pipeline.fetch_pages("newcloud", snap, FetchContext())}
        assert pipeline.load_and_publish(path, fetched, source="test").exit_code == 0

    def stored() -> list[tuple]:
        con = db.connect_readonly(path)
        try:
            return db.run(
                con,
                "SELECT series_id, seen_at, value, load_id FROM stg_newcloud__ticks ORDER BY ALL",
            )
        finally:
            con.close()

    first = [("a", "2026-11-20T01:00:00", 1.0), ("a", "2026-11-20T02:00:00", 2.0),
             ("b", "2026-11-20T01:30:00", 5.0)]
    refresh(snapshot(tmp_path / "n1", first, "2026-11-20T02:05:00Z"))
    assert [(n, sorted(latest)) for n, latest in calls] == [(1, [])]  # a full parse
    night1 = stored()
    assert len(night1) == 3

    # the next walk repeats the newest point it started from, and brings two new ones
    second = [("a", "2026-11-20T02:00:00", 2.0), ("a", "2026-11-20T03:00:00", 3.0),
              ("b", "2026-11-20T03:30:00", 4.0)]
    refresh(snapshot(tmp_path / "n2", second, "2026-11-20T03:35:00Z"))
    pages_read, latest = calls[-1]
    assert pages_read == 1  # only the new tick page, not the history
    assert latest[TICKS.name].select("series_id", "seen_at", "value").rows() == [
        ("a", datetime(2026, 11, 20, 2), 2.0),  # the newest stored point of each series,
        ("b", datetime(2026, 11, 20, 1, 30), 5.0),  # before this parse's points are added
    ]
    night2 = stored()
    assert len(night2) == 5  # the repeated point is staged once, from the first night
    assert set(night1) <= set(night2)
    # where the next fetch of the scope starts: the newest point stored, from the table
    assert staging.watermarks(path, "newcloud")[("ticks", "north")] == datetime(
        2026, 11, 20, 3, 30
    )


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_parse_that_breaks_its_declaration_fails_that_provider_alone(tmp_path, monkeypatch):
    path = tmp_path / "w.duckdb"
    snap = snapshot(tmp_path / "n1", [("a", "2026-11-20T01:00:00", 1.0)], "2026-11-20T02:05:00Z")
    shutil.copytree(DEMO_DIR / "cloudrift", snap / "cloudrift")

    def refresh() -> pipeline.RunSummary:
        fetched = {n: pipeline.fetch_pages(n, snap, FetchContext()) for n in ("newcloud", "cloudrift")}
        return pipeline.load_and_publish(path, fetched, source="test")

    monkeypatch.setitem(registry.PROVIDERS, "newcloud", newcloud([]))
    assert refresh().exit_code == 0

    def drifted(pages, latest):
        rows = ticks(pages).rename({"value": "price"})
        return Parsed(lambda_parse.parse(pages.filter(pl.col("endpoint") == LAMBDA_ENDPOINT)),
                      {TICKS.name: rows})

    monkeypatch.setitem(registry.PROVIDERS, "newcloud", newcloud([], parse_pages=drifted))
    monkeypatch.setattr(staging, "code_digest", lambda name: "a parser change")  # re-parse
    summary = refresh()
    status = {p.provider: (p.status, p.failed) for p in summary.providers}
    assert status["cloudrift"] == ("ok", [])
    assert status["newcloud"][0] == "failed"
    assert "stg_newcloud__ticks" in status["newcloud"][1][0]
    assert "['value']" in status["newcloud"][1][0] and "['price']" in status["newcloud"][1][0]
    con = db.connect_readonly(path)
    try:  # the last good rows stay
        assert db.run(con, "SELECT series_id, value FROM stg_newcloud__ticks") == [("a", 1.0)]
    finally:
        con.close()


def test_every_connector_names_a_parse_fetch_and_staged_tables_that_exist():
    """What a connector names with `later` is imported on first use: each name resolves
    (a misspelt module or function would fail only when a page is parsed), and its staged
    tables pass the connector's checks."""
    from connectors.kit.connector import Later, StagedTable

    for connector in registry.PROVIDERS.values():
        for fn in (connector.parse_pages, connector.fetch_live):
            target = fn.resolve() if isinstance(fn, Later) else fn
            assert callable(target), (connector.name, fn)
        wrapped = getattr(connector.parse_pages, "__wrapped__", None)
        if isinstance(wrapped, Later):
            assert callable(wrapped.resolve()), (connector.name, wrapped)
        assert all(isinstance(t, StagedTable) for t in connector.staged), connector.name
