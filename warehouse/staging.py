"""Staging: a connector's current pages (read back from the raw store) parsed, normalised
and staged, one transaction per provider, and what decides whether that is needed.

- `stage_provider`: parse and stage a provider's current pages, or nothing when they and
  the parsing code (`code_digest`) are the ones its staged offers came from; a series
  endpoint's older pages are not re-read; a fall in offers beyond the allowed share raises
  `OfferDrop`; rejected records go to quarantine with their reasons (a batched
  connector's offers are staged batch by batch as they are parsed: warehouse.batches);
- `hold_back`: the plausibility rules over the re-staged providers;
- `watermarks_of` (`watermarks` for one): where each provider's incremental fetches
  start, read on one connection;
- `sql_digest`: the SQL a refresh builds and asserts with (unchanged: nothing re-asserted);
- `views_digest`: what a build's views are made from (unchanged: the views are kept);
- `replace_staged`, `quarantine`: the staged tables and the quarantine themselves.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

import duckdb

from common.errors import PricingError
from common.gpu_seeds import SEED_GPU_ALIASES, SEED_GPU_SPECS, SEED_INSTANCE_FAMILIES
from common.schemas import SEED_DDL
from connectors import registry
from connectors.errors import UnexpectedResponse
from connectors.kit import fx, provenance
from connectors.kit.connector import Connector, Series, StagedTable
from connectors.kit.page import pages_frame, utc_now
from warehouse import (
    batches,
    checks,
    db,
    lineage,
    plausibility,
    raw,
    series_newest,
    sql_runner,
)
from warehouse.db import insert_frame, query, run
from warehouse.file_digest import files_digest
from warehouse.rawstore import RawStore

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.connector import Parsed
    from connectors.kit.normalise import Normalised


def replace_staged(con: duckdb.DuckDBPyConnection, table: str, rows: pl.DataFrame, ddl: str) -> int:
    """A staged table (made by `ddl` where it is not there yet) holding `rows` only."""
    run(con, ddl)
    run(con, f"DELETE FROM {table}")
    return insert_frame(con, table, rows)


def quarantine(con: duckdb.DuckDBPyConnection, rejected: pl.DataFrame, at) -> int:
    """Insert rejected records not already quarantined (same load, reason and record)."""
    import polars as pl

    if rejected.is_empty():
        return 0
    frame = rejected.with_columns(pl.lit(at).cast(pl.Datetime("us")).alias("quarantined_at"))
    con.register("_rejected", frame.to_arrow())
    try:
        before = run(con, "SELECT count(*) FROM quarantine")[0][0]
        run(
            con,
            """
            INSERT INTO quarantine BY NAME
            SELECT DISTINCT r.* FROM _rejected r
            WHERE NOT EXISTS (
                SELECT 1 FROM quarantine q
                WHERE q.load_id = r.load_id AND q.reason = r.reason
                  AND q.record IS NOT DISTINCT FROM r.record)
            """,
        )
        return run(con, "SELECT count(*) FROM quarantine")[0][0] - before
    finally:
        con.unregister("_rejected")


@dataclass
class ProviderSummary:
    provider: str
    fetched: int = 0  # pages fetched
    unchanged: int = 0  # pages already stored
    loaded: int = 0  # offers staged (current state)
    rejected: int = 0  # records quarantined by this parse
    excluded: int = 0
    unknown_gpu: int = 0
    failed: list[str] = field(default_factory=list)  # "endpoint/scope: error"
    notes: list[str] = field(default_factory=list)  # held back by the checks: why
    skipped: list[str] = field(default_factory=list)
    parse_failed: bool = False  # pages landed, but no offers could be staged from them
    reused: bool = False  # current pages unchanged since the last parse: staged offers kept
    fetch_seconds: float = 0.0  # set by the caller that fetched (flows.refresh)
    land_seconds: float = 0.0
    # parse, normalise, stage, quarantine (of the small providers normalised together,
    # warehouse.ahead, not their share of that one normalise)
    stage_seconds: float = 0.0

    @property
    def status(self) -> str:
        if (self.failed and not self.fetched) or self.parse_failed:
            return "failed"  # no price from this run landed (the last good data stays)
        if self.failed:
            return "partial"
        return "ok" if self.fetched or not self.skipped else "skipped"


def watermarks(path: Path, provider: str) -> dict[tuple[str, str], datetime]:
    """One provider's watermarks (`watermarks_of`)."""
    return watermarks_of(path, [provider])[provider]


def watermarks_of(
    path: Path, providers: Iterable[str]
) -> dict[str, dict[tuple[str, str], datetime]]:
    """What each provider's incremental fetches start from, read on one connection (an
    open of the warehouse costs more than its queries): per (endpoint, scope) already
    published:
    - by default the newest successful load's finish time;
    - where the connector declares its source versions to be publication times
      (`Connector.source_version_format`), the newest version stored, so an unchanged
      file is recognised before it is downloaded;
    - for a time series it stages (a `StagedTable` with a `Series`), the newest point
      stored per scope, so the next fetch starts where the stored series ends.
    Empty when the warehouse does not exist yet."""
    providers = list(providers)
    if not path.exists():
        return {provider: {} for provider in providers}
    con = db.connect_readonly(path)
    try:
        return {provider: _watermarks(con, provider) for provider in providers}
    finally:
        con.close()


def _watermarks(con, provider: str) -> dict[tuple[str, str], datetime]:
    import polars as pl

    connector = registry.get(provider)
    rows = db.query(
        con,
        """SELECT endpoint, scope,
                  coalesce(max(try_strptime(source_version, $version_format)),
                           max(l.finished_at)) AS at
           FROM _loads l WHERE provider = $p AND status = 'ok' GROUP BY ALL""",
        {"p": provider, "version_format": connector.source_version_format},
    )
    for table, series in connector.series_tables:
        if not db.relation_exists(con, table.name):
            continue
        points = db.query(
            con,
            f"""SELECT $endpoint AS endpoint, {series.scope} AS scope,
                       max({series.time}) AS at
                FROM {table.name} GROUP BY {series.scope}""",
            {"endpoint": series.endpoint},
        )
        rows = pl.concat([rows, points], how="vertical_relaxed").unique(
            ["endpoint", "scope"], keep="last", maintain_order=True
        )
    return {(r["endpoint"], r["scope"]): r["at"] for r in rows.iter_rows(named=True)}


_ROOT = Path(__file__).resolve().parent.parent
# besides a connector's package and the kit: what every parse runs and reads (the GPU
# identity of common/gpu.py and its seeds, the rates of currencies, the staged schema, how
# offers are staged), relative to the project's root
_PARSED_WITH = (
    "common/gpu.py",
    "common/gpu_seeds.py",
    "common/schemas.py",
    "warehouse/staging.py",
    "warehouse/batches.py",
    *(
        seed.relative_to(_ROOT).as_posix()
        for seed in (SEED_GPU_ALIASES, SEED_GPU_SPECS, SEED_INSTANCE_FAMILIES, fx.RATES_CSV)
    ),
)


def code_digest(name: str) -> str:
    """A digest of the code a connector's offers are parsed and staged with (its package,
    the shared connector modules, the GPU identity rule and the seeds the parse reads, the
    staged schema): a change re-parses its pages even when they did not change, so a
    parser or seed fix reaches the staged offers and history."""
    files = sorted(
        [
            *(_ROOT / "connectors" / name).rglob("*.py"),
            *(_ROOT / "connectors" / name).rglob("*.csv"),
            *(_ROOT / "connectors" / "kit").glob("*.py"),  # the connector kit
            *(_ROOT / f for f in _PARSED_WITH),
        ]
    )
    return files_digest(files, _ROOT)


class ParsedFrom(NamedTuple):
    """`parsed_from`'s answer."""

    digest: str  # of the connector's current pages (raw.pages_digest)
    code: str  # of its parsing code (code_digest)
    staged: list[tuple]  # `_staged`'s row: pages digest, code digest, run; none yet: []
    pages: list[tuple]  # its current pages, as the ledger lists them (raw.current_pages)


def parsed_from(con, name: str, pages: list[tuple] | None = None) -> ParsedFrom:
    """A connector's current pages (and their digest) and parsing code digest, and what its
    staged offers were parsed from. `pages`: its current pages, when the caller read them
    for every provider at once (raw.current_pages); a parse that follows takes its index
    from these rows."""
    if pages is None:
        pages = raw.current_pages(con, {name: registry.get(name).endpoints})[name]
    staged = run(
        con, "SELECT pages_digest, code_digest, run_id FROM _staged WHERE connector = ?", [name]
    )
    return ParsedFrom(raw.pages_digest(pages), code_digest(name), staged, pages)


def parsed_already(parsed: ParsedFrom) -> bool:
    """Whether a connector's staged offers were parsed from these very pages by this very
    code (`parsed_from`): then nothing is parsed again."""
    return bool(parsed.staged) and parsed.staged[0][:2] == (parsed.digest, parsed.code)


def resumes_from(connector: Connector, parsed: ParsedFrom) -> str | None:
    """The run whose parse a series connector's parse goes on from (its series pages
    landed since then are the only ones read): the last parse's, when the parsing code is
    the same; None for a parse of every current page."""
    staged, code = parsed.staged, parsed.code
    return staged[0][2] if staged and staged[0][1] == code and connector.series_tables else None


def parse_current(
    connector: Connector,
    index: pl.DataFrame,
    store: RawStore,
    latest: dict[str, pl.DataFrame] | None = None,
) -> Parsed:
    """The connector's parse of the pages of `index` (a `raw.current_index`), read from
    the raw store; their payloads, the bulk of a refresh's memory, go when it returns."""
    return connector.parse(pages_frame(raw.with_payloads(index, store)), latest)


def sql_digest() -> str:
    """A digest of the SQL a refresh builds and asserts with (views, macros, seeds,
    assertions): with no provider re-staged and the same SQL, nothing needs re-asserting."""
    files = sorted(p for p in sql_runner.SQL_DIR.rglob("*") if p.is_file())
    return files_digest(files, sql_runner.SQL_DIR)


def views_digest(con: duckdb.DuckDBPyConnection) -> str:
    """A digest of what a build's seeds, views, table macros and descriptions are made
    from: the SQL project (`sql_digest`), each connector's sources.yml, the code that builds
    them (the SQL runner and its lineage parse, the seed tables' DDL), DuckDB's version,
    and the warehouse's other tables with their columns (the union of the staged offers is
    generated from them, and a source's description applied once its table exists). When
    it is the last published build's, the warehouse's views are the ones a build would make
    again (pipeline.load_and_publish then keeps them)."""
    h = hashlib.sha256(sql_digest().encode())
    code = [*sql_runner.connector_sources(), Path(sql_runner.__file__), Path(lineage.__file__)]
    h.update(files_digest(code).encode())
    h.update(repr(sorted(SEED_DDL.items())).encode() + duckdb.__version__.encode())
    built = [*sql_runner.view_files(), *sql_runner.macro_files(), *SEED_DDL]
    tables = run(
        con,
        """SELECT table_name, list(column_name || ' ' || data_type ORDER BY column_index)
           FROM duckdb_columns()
           WHERE database_name = current_database() AND schema_name = 'main'
             AND table_name IN (SELECT table_name FROM duckdb_tables()
                                WHERE database_name = current_database()
                                  AND schema_name = 'main')
             AND table_name NOT IN (SELECT unnest($built::VARCHAR[]))
           GROUP BY ALL ORDER BY ALL""",
        {"built": built},
    )
    h.update(repr(tables).encode())
    return h.hexdigest()


def views_current(con: duckdb.DuckDBPyConnection, built: str | None) -> tuple[str, bool]:
    """(`views_digest`, whether the warehouse's views can be kept as they are): the digest
    is `built`, the last published build's, and every view, table macro and seed a build
    makes is there."""
    digest = views_digest(con)
    if digest != built:
        return digest, False
    present = set(sql_runner.relation_kinds(con))
    macros = {
        name
        for (name,) in run(
            con,
            """SELECT function_name FROM duckdb_functions()
               WHERE function_type = 'table_macro' AND NOT internal""",
        )
    }
    made = {*sql_runner.view_files(), *SEED_DDL, sql_runner.UNIONED_VIEW}
    return digest, made <= present and set(sql_runner.macro_files()) <= macros


def _since(con, index: pl.DataFrame, connector: Connector, run_id: str) -> pl.DataFrame:
    """`index` without the series endpoints' pages that a successful load of `run_id` (the
    last parse) or of an earlier run listed: those were parsed. By sha256, not by the load
    that first stored a page: that load may have failed, its pages parsed by none."""
    import polars as pl

    appended = [series.endpoint for _, series in connector.series_tables]
    parsed = db.query(
        con,
        """SELECT DISTINCT p.sha256 FROM _load_pages p JOIN _loads l ON l.load_id = p.load_id
           WHERE l.provider = $p AND l.status = 'ok' AND l.run_id <= $r
             AND l.endpoint IN (SELECT unnest($e))""",
        {"p": connector.name, "r": run_id, "e": appended},
    )["sha256"]
    return index.filter(~pl.col("endpoint").is_in(appended) | ~pl.col("sha256").is_in(parsed.implode()))


def _stated(table: StagedTable) -> bool:
    """Whether the points of a staged table are stated as their pages say: a time series
    that declares a `provenance` column (AWS spot price history)."""
    return table.series is not None and "provenance" in table.columns


def _stated_points(con, table: StagedTable) -> None:
    """A spot series staged before its points carried a `provenance` (a warehouse written
    by an earlier version): the column is added, and each stored point without one takes
    what the statement of the page it came from says (`_load_pages.provenance`, the
    ledger), as a new point does, so an invented demo point stored then is `illustrative`
    too. Runs in the refresh's transaction, before the provider is parsed (a warehouse of
    an earlier version was staged by other code, so the next refresh parses); on a series
    whose points are all stated (staging states each new one) it finds nothing to do."""
    if not _stated(table):
        return  # a series whose points state nothing: no column to fill
    if not db.relation_exists(con, table.name):
        return  # not staged yet: created with the column
    run(con, f"ALTER TABLE {table.name} ADD COLUMN IF NOT EXISTS provenance VARCHAR")
    # a statement's selectors name these of a point's columns (the series declares them)
    selected = [k for k in provenance.SELECTOR_KEYS if k in table.columns]
    keys = query(
        con,
        f"""SELECT DISTINCT load_id, {", ".join(selected)},
                   CAST(NULL AS VARCHAR) AS provenance
            FROM {table.name} WHERE provenance IS NULL""",
    )
    if keys.is_empty():
        return
    pages = query(
        con,
        "SELECT DISTINCT load_id, provenance FROM _load_pages "
        "WHERE load_id IN (SELECT unnest($l))",
        {"l": keys["load_id"].unique().to_list()},
    )
    con.register("_stated", provenance.apply_points(keys, pages).to_arrow())
    try:
        run(
            con,
            f"""UPDATE {table.name} AS t SET provenance = s.provenance FROM _stated s
                WHERE t.provenance IS NULL AND t.load_id = s.load_id
                  {"".join(f" AND t.{k} IS NOT DISTINCT FROM s.{k}" for k in selected)}""",
        )
    finally:
        con.unregister("_stated")
    series_newest.forget(con, table.name)  # their provenance changed in place


def _latest(con, connector: Connector) -> dict[str, pl.DataFrame]:
    """The newest stored row of each series of the connector's series tables: what its
    parse gets in place of the series pages it does not re-read (kept between refreshes:
    warehouse.series_newest)."""
    return {
        table.name: series_newest.read(con, table.name, series.series, series.time)
        for table, series in connector.series_tables
    }


def _append_rows(con, table: StagedTable, series: Series, rows: pl.DataFrame) -> None:
    """Add the rows of the newly landed series pages whose key is not staged yet (one
    staged row per key, kept here, at insert: an earlier load keeps a row that a later page
    repeats). Only the stored rows from the new rows' earliest time on can share a key
    with one (the time is part of the key): the anti-join reads those, so a night's insert
    does not scan the year behind it (DuckDB skips the older row groups by their min/max).
    A PRIMARY KEY would keep it too, but its index over 8.8M points took 151 s and 2 GiB
    to build and made the nightly insert slower (1.6 s against 1.1 s, measured)."""
    if rows.is_empty():
        return
    ((before,),) = run(con, f"SELECT count(*) FROM {table.name}")
    con.register("_new_rows", db.arrow_of(rows))
    try:
        same = " AND ".join(f"t.{c} IS NOT DISTINCT FROM n.{c}" for c in series.key)
        run(
            con,
            f"""INSERT INTO {table.name} BY NAME
                SELECT n.* FROM _new_rows n ANTI JOIN (
                    SELECT * FROM {table.name} WHERE {series.time} >= $since
                       OR {series.time} IS NULL) t ON {same}""",
            {"since": rows[series.time].min()},
        )
    finally:
        con.unregister("_new_rows")
    series_newest.appended(con, table.name, rows[series.time].min(), before)


def stage_provider(
    con,
    run_id: str,
    name: str,
    summary: ProviderSummary,
    store: RawStore | None = None,
    *,
    max_drop_pct: float = 0.0,
    emptied: int | None = None,
    parsed: ParsedFrom | None = None,
    ahead: Callable[[], tuple[Parsed, Normalised]] | None = None,
) -> bool:
    """Parse and stage a provider's current pages; False (nothing done) when they and the
    parsing code are the ones its staged offers came from (`parsed_from`). Raises `OfferDrop` when its
    offers fall by more than `max_drop_pct` percent from the ones staged (0: no limit).
    Call it in a transaction (pipeline.load_and_publish holds one per provider): the
    offers are staged batch by batch as they are parsed, and a failure on the way must
    leave every staged table as it was. `parsed`: `parsed_from`'s answer, when the caller
    has it (the ledger and the staged tables as they are now). `ahead`: gives its parse
    and normalised offers when the refresh made them before staging any provider
    (warehouse.ahead.Ahead.result), or raises the error they raised, as the parse here
    would."""
    connector = registry.get(name)
    store = store or RawStore.beside(_database_path(con))
    parsed = parsed or parsed_from(con, name)
    digest, code, current = parsed.digest, parsed.code, parsed.pages
    if parsed_already(parsed):
        # staged by this very code, which stated every point it staged and those stored
        # before (below): nothing to state, and the series' tables (declared with Polars'
        # types) are not even resolved
        summary.reused = True
        summary.loaded = run(con, f"SELECT count(*) FROM {connector.staging_table}")[0][0]
        return False
    for table, _ in connector.series_tables:  # before the parse, which may add to them
        _stated_points(con, table)
    import polars as pl

    index = raw.current_index(current)  # the ledger only
    # each current page's provenance statement (a recorded page may mark its prices
    # illustrative), applied to the offers parsed from it below
    statements = index.select("load_id", "provenance") if index.height else None
    # same parsing code as the last parse: a series endpoint's older pages are parsed
    # already (their rows are staged), so only the pages landed since then are read
    since = resumes_from(connector, parsed)
    if since is not None and not connector.batched_endpoint:
        index = _since(con, index, connector, since)
    # what this refresh's checks cover: the loads of the pages parsed now (warehouse.checks)
    checks.scope(con, index["load_id"].to_list() if index.height else [])
    table = connector.staging_table
    # what a fall in offers is measured from (`emptied`: the rows warehouse.restage
    # deleted before this transaction)
    before = staged_rows(con, table) if emptied is None else emptied
    # emptied, then filled batch by batch (made, with every staged column, by the refresh
    # before any provider is staged: flows.pipeline.make_staged_tables)
    run(con, f"DELETE FROM {table}")

    def stage(offers: pl.DataFrame) -> None:
        if statements is not None:
            offers = provenance.apply(offers, statements)
        insert_frame(con, table, batches.in_staged_order(offers))

    if connector.batched_endpoint:
        result = batches.normalise_in_batches(connector, index, store, stage)
    else:
        normalised = None
        if ahead is not None:
            parsed, normalised = ahead()
        else:
            latest = None if since is None else _latest(con, connector)
            parsed = parse_current(connector, index, store, latest)
        for staged_table in connector.staged:
            rows = parsed.staged[staged_table.name]
            if _stated(staged_table):  # each point stated as its page says
                rows = provenance.apply_points(rows, statements)
            if since is not None and staged_table.series is not None:
                _append_rows(con, staged_table, staged_table.series, rows)
            else:
                replace_staged(con, staged_table.name, rows, ddl=staged_table.ddl)
                if staged_table.series is not None:
                    series_newest.keep(
                        con, staged_table.name, staged_table.series.series, staged_table.series.time
                    )
        result = batches.staged(parsed.normalised() if normalised is None else normalised, stage)
        del parsed
    loaded = batches.unique_offers(con, table)
    if not loaded:
        # a price source that answers with no prices is broken (schema drift, an error
        # body with HTTP 200): keep the last good offers rather than retract them all (the
        # caller's transaction rolls the emptied table back)
        raise UnexpectedResponse(
            name,
            "*",
            f"the current pages parse to no offers ({result.rejected.height} rejected, "
            f"{int(result.excluded['n'].sum()) if result.excluded.height else 0} excluded); "
            "keeping the last good data",
        )
    _check_drop(name, before, loaded, max_drop_pct)
    summary.rejected = quarantine(con, result.rejected, utc_now())
    summary.loaded = loaded
    summary.excluded = int(result.excluded["n"].sum()) if result.excluded.height else 0
    summary.unknown_gpu = int(result.unknown_gpu["n"].sum()) if result.unknown_gpu.height else 0
    counts = (
        pl.concat(
            [
                query(con, f"SELECT load_id, count(*) AS rows FROM {table} GROUP BY load_id"),
                result.rejected.group_by("load_id").len("rejected"),
                result.excluded.group_by("load_id").agg(pl.col("n").sum().alias("excluded")),
                result.unknown_gpu.rename({"n": "unknown_gpu"}),
            ],
            how="diagonal_relaxed",
        )
        .group_by("load_id")
        .agg(pl.col("rows", "rejected", "excluded", "unknown_gpu").sum().cast(pl.Int32))
    )
    raw.update_counts(con, run_id, counts)
    run(
        con,
        "INSERT OR REPLACE INTO _staged VALUES (?, ?, ?, ?, ?)",
        [name, digest, code, run_id, utc_now()],
    )
    return True


def hold_back(
    con,
    refreshed: list[str],
    summaries: dict[str, ProviderSummary],
    rules,
    loads: list[str] | None = None,
) -> None:
    """The plausibility rules (warehouse.plausibility) over the re-staged providers (their
    spot points of `loads` when given): what they hold back is quarantined and counted in
    the provider's summary, and a GPU without a reference row is named there."""
    series = [
        plausibility.SeriesTable(name, table.name, (*s.series, s.time))
        for name in refreshed
        for table, s in registry.get(name).series_tables
    ]
    held = plausibility.hold_back(con, refreshed, series, rules, utc_now(), loads)
    for name, n in held.quarantined.items():
        if name in summaries:
            summaries[name].rejected += n
            summaries[name].loaded -= held.offers.get(name, 0)
            summaries[name].notes.extend(held.unknown_gpus.get(name, []))


class OfferDrop(PricingError):
    """A provider's offers fell by more than the allowed share from its last good load: its
    previous offers are kept (a drifted or half-empty source), unless accepted."""


def staged_rows(con, table: str) -> int:
    """The rows of a staged table (the refresh made it before any provider is staged:
    flows.pipeline.make_staged_tables)."""
    return run(con, f"SELECT count(*) FROM {table}")[0][0]


def _check_drop(name: str, before: int, now: int, max_drop_pct: float) -> None:
    if max_drop_pct <= 0:
        return
    if before and now < before * (1 - max_drop_pct / 100):
        raise OfferDrop(
            f"{name}: offers fell from {before} to {now} (more than {max_drop_pct:g}% since "
            f"its last good load); keeping the previous offers (accept with "
            f"`gpu-pricing refresh --accept-drop {name}`)"
        )


def _database_path(con) -> Path:
    (path,) = run(
        con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    )[0]
    return Path(str(path).removesuffix(".next"))


def migrate_raw(path: Path) -> int:
    """Move the raw payloads of a warehouse written before the raw store (`raw_*` tables)
    into the store beside it, publishing the smaller file atomically; what the first
    refresh of such a warehouse does anyway. Returns the number of pages moved."""
    path = Path(path)
    if not path.exists():
        return 0
    with db.building(path) as con:
        return raw.migrate_legacy(con, RawStore.beside(path))
