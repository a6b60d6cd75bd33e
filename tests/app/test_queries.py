"""What faces users (gpu_pricing/), the services and the publish read the warehouse through
warehouse/queries/*.sql only:
no SQL statement in its Python, every query file says what it returns and is read by some
module, every query runs on a refreshed warehouse with its parameters bound, and the report
shows the marts' figures (it computes none, and has no substitute when a mart is missing)."""

from __future__ import annotations

import ast
import re
import shutil
from datetime import datetime
from pathlib import Path

import duckdb
import polars as pl
import pytest

from gpu_pricing import api, report
from warehouse import db, queries

ROOT = Path(__file__).resolve().parents[2]
# the readers of the queries: what faces users, the services (alerts) and the publish
READERS_PY = sorted(
    [*(ROOT / "gpu_pricing").rglob("*.py"), *(ROOT / "services").rglob("*.py"),
     *(ROOT / "warehouse").glob("publish*.py")]
)
QUERY_FILES = sorted(queries.QUERIES_DIR.glob("*.sql"))

# A SQL statement: a string that opens (after any `--` comment lines) with a statement
# keyword and has the clause that makes it one (SELECT ... FROM, INSERT INTO, ...). Prose
# such as "select the cheapest offer" does not match.
STATEMENT = re.compile(
    r"""^\s*(?:--[^\n]*\n\s*)*
        (?:select\s+(?=(?:distinct\s+)?(?:\*|\(|\{\}|case\b|[\w.]*\*
                                            |[\w.]+\s*(?:,|\(|::|\bas\b|\bfrom\b))).*\bfrom\b
         | with\s+(?:recursive\s+)?\w+\s+as\s*\( | insert\s+(?:or\s+\w+\s+)?into\b
         | create\s+(?:or\s+replace\s+)?(?:temp\s+|temporary\s+|unique\s+)?
           (?:table|view|macro|index|schema|sequence)\b
         | update\s+[\w."{}]+\s+(?:\w+\s+)?(?:--[^\n]*\n\s*)*set\b
         | delete\s+from\b | drop\s+(?:table|view|macro|schema)\b | alter\s+table\b
         | copy\s+\S+\s+(?:to|from)\s+['"$?] | attach\s+['"$?] | summarize\s)""",
    re.IGNORECASE | re.DOTALL | re.VERBOSE,
)


def sql_strings(source: str) -> list[tuple[int, str]]:
    """(line, text) of every string literal or f-string of `source` holding a SQL
    statement; an f-string's replacement fields read as `{}`."""
    tree = ast.parse(source)
    # the literal parts of an f-string are read with the f-string, not on their own
    parts = {id(v) for n in ast.walk(tree) if isinstance(n, ast.JoinedStr) for v in n.values}
    found = []
    for node in ast.walk(tree):
        if id(node) in parts:
            continue
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
        elif isinstance(node, ast.JoinedStr):
            text = "".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values)
        else:
            continue
        if STATEMENT.search(text):
            found.append((node.lineno, text))
    return found


@pytest.mark.parametrize(
    "source",
    [
        'Q = "SELECT * FROM mart_cheapest_gpu_hour"',
        'Q = """\n    -- the cheapest\n    select gpu_name\n    from dim_gpus\n"""',
        'Q = f"SELECT {\', \'.join(cols)} FROM dim_gpus"',
        'db.run(con, "INSERT INTO alert_events VALUES (?, ?)")',
        'db.run(con, f"CREATE OR REPLACE VIEW {name} AS SELECT 1")',
        'db.run(con, "UPDATE _runs SET status = ? WHERE run_id = ?")',
        'Q = "WITH t AS (SELECT 1 AS x) SELECT x FROM t"',
        'db.run(con, "DROP VIEW mart_cost_per_token")',
    ],
)
def test_the_check_finds_a_sql_statement_in_python(source):
    assert len(sql_strings(source)) == 1


@pytest.mark.parametrize(
    "source",
    [
        'HELP = "select the cheapest offer from the list"',
        'HELP = "also list illustrative prices (marked in `note`)"',
        'name = "cheapest_summary"',
        'X = "Copy a local file to `location` so readers never see a part"',
        'X = "Create `int_offers_unioned` over every staging table, as a view"',
        'X = "update the rates, then set a budget"',
    ],
)
def test_the_check_leaves_prose_and_query_names_alone(source):
    assert sql_strings(source) == []


def test_no_python_module_of_a_query_reader_holds_a_sql_statement():
    offenders = [
        f"{path.relative_to(ROOT)}:{line}: {text.strip().splitlines()[0][:80]}"
        for path in READERS_PY
        for line, text in sql_strings(path.read_text(encoding="utf-8"))
    ]
    assert offenders == [], "move these into warehouse/queries/<name>.sql:\n" + "\n".join(
        offenders
    )


# the readers of a query by name, and the position of the name among their arguments:
# queries.sql("x"), queries.read(con, "x"), the API's _query(warehouse, "x") and the cost
# commands' Warehouse.query("x", params)
READERS = {"sql": 0, "read": 1, "read_rows": 1, "_query": 1, "query": 0}


def query_names_read_in_code() -> dict[str, list[str]]:
    """Query name -> where it is read."""
    used: dict[str, list[str]] = {}
    for path in READERS_PY:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            position = READERS.get(called)
            if position is None or len(node.args) <= position:
                continue
            arg = node.args[position]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                used.setdefault(arg.value, []).append(f"{path.relative_to(ROOT)}:{node.lineno}")
    return used


def test_every_query_read_in_code_has_its_file_and_every_file_is_read():
    used = query_names_read_in_code()
    files = {path.stem for path in QUERY_FILES}
    assert {name: where for name, where in used.items() if name not in files} == {}
    assert sorted(files - set(used)) == []


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.stem)
def test_each_query_file_opens_with_what_it_returns_and_binds_values_as_parameters(path):
    text = path.read_text(encoding="utf-8")
    assert text.startswith("-- "), f"{path.name}: start with a comment saying what it returns"
    # values arrive as DuckDB named parameters ($gpu), never pasted in by Python formatting
    # (`{}`, `%s`) nor bound by position (`?`)
    code = re.sub(r"--[^\n]*", "", text)
    assert not re.search(r"\{\w*\}|%\(?\w*\)?s|\?", code), path.name


# a value for every parameter the query files use: what a command passes
PARAMS = {
    "gpu": "H100",
    "variant": None,
    "memory": None,
    "pricing": "on_demand",
    "provider": None,
    "region": None,
    "zone": None,
    "instance_type": "p5.48xlarge",
    "limit": 5,
    "since": None,
    "precision": "bf16",
    "need_peak": True,
    "include_illustrative": False,
    "include_gpu_only": False,
    "overhead": 0.05,
    "interval": 1.0,
    "restart": 0.0,
    # the connectors the alert checks watch (null: as the queries say, with none configured)
    "watched": None,
    # the alert events' writes
    "rule": "price_above:h100",
    "state": "ALARM",
    "value": 4.2,
    "threshold": 4.0,
    "message": "H100 above 4.0",
    "fired_at": datetime(2026, 11, 24, 1, 0),
    "delivered": False,
    "pending_targets": '{"ops": "not yet attempted"}',
}


# the columns the Python reading a query relies on, by query
EXPECTED_COLUMNS = {
    "gpu_specs": list(api.SPEC_SCHEMA),  # the bundled seed's columns, its stand-in
    "gpu_variant_specs": api.SPEC_COLUMNS,
    "estimate_offers": [
        *api.OFFER_COLUMNS, "cheapest_order", "peak_tflops", "memory_bandwidth_gbps",
        "interconnect_gbps",
    ],
    "offer_by_key": api.OFFER_COLUMNS,
}


def _is_write(path: Path) -> bool:
    code = re.sub(r"--[^\n]*", "", path.read_text(encoding="utf-8")).strip().upper()
    return code.startswith(("INSERT", "UPDATE", "DELETE"))


def _params(name: str) -> dict:
    return {n: PARAMS[n] for n in set(re.findall(r"\$(\w+)", queries.sql(name)))}


@pytest.mark.parametrize("path", QUERY_FILES, ids=lambda p: p.stem)
def test_each_query_names_only_known_parameters(path):
    names = set(re.findall(r"\$(\w+)", path.read_text(encoding="utf-8")))
    assert names <= set(PARAMS), f"{path.name}: add {names - set(PARAMS)} to PARAMS"


@pytest.mark.parametrize(
    "path", [p for p in QUERY_FILES if not _is_write(p)], ids=lambda p: p.stem
)
def test_each_query_runs_on_a_refreshed_warehouse(path, demo_warehouse):
    con = db.connect_readonly(demo_warehouse)
    try:
        frame = queries.read(con, path.stem, _params(path.stem) or None)
    finally:
        con.close()
    assert isinstance(frame, pl.DataFrame) and frame.width > 0
    if path.stem in EXPECTED_COLUMNS:
        assert frame.columns == EXPECTED_COLUMNS[path.stem]


def test_the_alert_event_queries_record_list_and_settle_an_event(demo_warehouse, tmp_path):
    """The three write paths of alert delivery, on a copy: an event recorded pending is
    listed for delivery until it is marked delivered."""
    copy = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, copy)
    con = duckdb.connect(str(copy))
    try:
        con.execute(queries.sql("alert_event_record"), _params("alert_event_record"))
        pending = queries.read(con, "alert_events_pending")
        assert PARAMS["rule"] in pending["rule"].to_list()
        settled = {**_params("alert_event_delivered"), "delivered": True, "pending_targets": None}
        con.execute(queries.sql("alert_event_delivered"), settled)
        assert PARAMS["rule"] not in queries.read(con, "alert_events_pending")["rule"].to_list()
    finally:
        con.close()
    assert {p.stem for p in QUERY_FILES if _is_write(p)} == {
        "alert_event_record", "alert_event_delivered"
    }


def test_the_report_shows_no_cost_figure_when_its_marts_are_missing(tmp_path, demo_warehouse):
    """No substitute formulas: without mart_cost_per_token and mart_breakeven_onprem the two
    sections say "no data", name the missing mart and ask for a refresh; the rest render."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    with db.building(path) as con:
        db.run(con, "DROP VIEW mart_cost_per_token")
        db.run(con, "DROP VIEW mart_breakeven_onprem")
    con = db.connect_readonly(path)
    try:
        sections = {s.key: s for s in report.build_sections(con, "H100")}
    finally:
        con.close()
    for key, mart in (("cost_per_token", "mart_cost_per_token"), ("breakeven", "mart_breakeven_onprem")):
        assert not sections[key].has_data and sections[key].rows in (None, [])
        assert mart in sections[key].note and "run `gpu-pricing refresh`" in sections[key].note
    assert sections["cheapest"].has_data


def test_the_report_cost_per_token_names_one_offer_picked_by_the_ranking_tie_break(
    demo_warehouse,
):
    """Per GPU and pricing model the report shows the lowest cost per token of
    mart_cost_per_token; among offers at that cost, the first by provider, region, zone
    (none first), instance type, so provider and region come from the same offer."""
    con = db.connect_readonly(demo_warehouse)
    try:
        section = report.cost_per_token_section(con, "H100")
        offers = db.query(con, "SELECT * FROM mart_cost_per_token")
    finally:
        con.close()
    key = ["gpu_name", "gpu_memory_gib", "pricing_model"]
    cost = "usd_per_1m_training_tokens_per_b_params"
    lowest = (
        offers.filter(pl.col(cost).is_not_null())
        .filter(pl.col(cost) == pl.col(cost).min().over(key))
        .sort([*key, "provider", "region", "zone", "instance_type"], nulls_last=False)
    )
    tied = lowest.group_by(key).len().filter(pl.col("len") > 1)
    assert tied.height > 5  # the demo has GPUs whose cheapest cost is shared by several offers
    expected = lowest.group_by(key, maintain_order=True).first()
    shown = pl.DataFrame(section.rows).select(
        *key, "provider", "region", pl.col("usd_per_1m_tokens_per_b_params").alias(cost)
    )
    want = expected.filter(pl.col("pricing_model").is_in(["on_demand", "spot"])).select(
        shown.columns
    )
    assert shown.sort(key).to_dicts() == want.sort(key).to_dicts()
