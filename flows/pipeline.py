"""Composition of one refresh, without Prefect: the single writer.

`fetch_pages` gets a provider's pages (live or from a snapshot); `load_and_publish` lands
every provider's pages in the raw store (the ledger in the warehouse), re-parses each
provider whose current pages changed straight from the store, stages, quarantines,
merges history, rebuilds views, runs the assertions and publishes atomically. A provider
whose current pages (and parsing code) are the ones its staged offers came from is not
re-parsed, re-staged or re-merged. The Prefect flow (flows/refresh.py) wraps these two in
tasks.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Collection, Iterable, Iterator
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from connectors import registry
from connectors.errors import PricingError, UnexpectedResponse
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.connector import Connector, Series, StagedTable
from connectors.kit.normalise import Normalised, combine, normalise
from connectors.kit.page import FetchContext, FetchFailure, Page, pages_frame, utc_now
from flows import progress
from warehouse import db, history, plausibility, raw, sql_runner, staging
from warehouse.db import run
from warehouse.rawstore import DamagedObject, RawStore
from warehouse.schemas import OFFER_KEY, staging_ddl, staging_migrations

log = logging.getLogger(__name__)


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
    stage_seconds: float = 0.0  # parse, normalise, stage, quarantine

    @property
    def status(self) -> str:
        if (self.failed and not self.fetched) or self.parse_failed:
            return "failed"  # no price from this run landed (the last good data stays)
        if self.failed:
            return "partial"
        return "ok" if self.fetched or not self.skipped else "skipped"


@dataclass
class RunSummary:
    run_id: str
    warehouse: str
    source: str
    providers: list[ProviderSummary]
    history: dict[str, int]
    assertions: dict[str, int]
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds

    @property
    def exit_code(self) -> int:
        statuses = {p.status for p in self.providers}
        if not self.providers or (statuses <= {"failed", "skipped"} and "failed" in statuses):
            return 3
        return 1 if statuses & {"failed", "partial"} else 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for p, s in zip(d["providers"], self.providers, strict=True):
            p["status"] = s.status
        d["exit_code"] = self.exit_code
        return d


def one_line(exc: BaseException, limit: int = 400) -> str:
    """An error as one line: its first line (Polars appends its query plan over many
    lines), the type named where the text alone would not say what failed, cut to `limit`."""
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
    if isinstance(exc, pl.exceptions.PolarsError):
        first = f"{type(exc).__name__}: {first}"
    if isinstance(exc, DamagedObject) or len(first) <= limit:  # its repair hint is whole
        return first
    return first[: limit - 3] + "..."


@dataclass(frozen=True)
class SnapshotPages:
    """A provider's recorded pages, read from disk each time they are iterated: the single
    writer lands them one by one as it reads them, so a large snapshot (a million items,
    hundreds of MB) never sits in memory whole. A bad file fails the landing, and so the
    build: nothing of the refresh is published."""

    root: Path
    provider: str

    def __iter__(self) -> Iterator[Page]:
        return kit_snapshot.read_provider(self.root, self.provider)


def fetch_pages(
    provider: str, snapshot: str | Path | None, ctx: FetchContext
) -> SnapshotPages | list[Page | FetchFailure]:
    """A provider's pages: from a snapshot, read as they are landed (`SnapshotPages`);
    live, fetched now (the network is not held open while the warehouse is written)."""
    connector = registry.get(provider)
    if snapshot is not None:
        return SnapshotPages(kit_snapshot.resolve(snapshot), provider)
    return [i.compact() if isinstance(i, Page) else i for i in connector.fetch_live(ctx)]


def watermarks(path: Path, provider: str) -> dict[tuple[str, str], datetime]:
    """What incremental fetches start from, per (endpoint, scope) already published:
    - by default the newest successful load's finish time;
    - where the connector declares its source versions to be publication times
      (`Connector.source_version_format`), the newest version stored, so an unchanged
      file is recognised before it is downloaded;
    - for a time series it stages (a `StagedTable` with a `Series`), the newest point
      stored per scope, so the next fetch starts where the stored series ends.
    Empty when the warehouse does not exist yet."""
    if not path.exists():
        return {}
    connector = registry.get(provider)
    con = db.connect_readonly(path)
    try:
        rows = db.query(
            con,
            """SELECT endpoint, scope,
                      coalesce(max(try_strptime(source_version, $version_format)),
                               max(l.finished_at)) AS at
               FROM _loads l WHERE provider = $p AND status = 'ok' GROUP BY ALL""",
            {"p": provider, "version_format": connector.source_version_format},
        )
        for table, series in connector.series_tables:
            if not db.run(
                con, "SELECT 1 FROM duckdb_tables() WHERE table_name = $t", {"t": table.name}
            ):
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
    finally:
        con.close()
    return {(r["endpoint"], r["scope"]): r["at"] for r in rows.iter_rows(named=True)}


BATCH_BYTES = 64 << 20
_ROOT = Path(__file__).resolve().parent.parent


def code_digest(name: str) -> str:
    """A digest of the code a connector's offers are parsed and staged with (its package,
    the shared connector modules, the staged schema): a change re-parses its pages even
    when they did not change, so a parser fix reaches the staged offers and history."""
    files = sorted(
        [
            *(_ROOT / "connectors" / name).rglob("*.py"),
            *(_ROOT / "connectors" / name).rglob("*.csv"),
            *(_ROOT / "connectors" / "kit").glob("*.py"),  # the connector kit
            _ROOT / "warehouse" / "schemas.py",
            _ROOT / "flows" / "pipeline.py",
        ]
    )
    h = hashlib.sha256()
    for f in files:
        h.update(f.relative_to(_ROOT).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def sql_digest() -> str:
    """A digest of the SQL a refresh builds and asserts with (views, macros, seeds,
    assertions): with no provider re-staged and the same SQL, nothing needs re-asserting."""
    h = hashlib.sha256()
    for f in sorted(p for p in sql_runner.SQL_DIR.rglob("*") if p.is_file()):
        h.update(f.relative_to(sql_runner.SQL_DIR).as_posix().encode() + b"\0" + f.read_bytes())
    return h.hexdigest()


def _normalise_in_batches(
    connector: Connector, index: pl.DataFrame, store: RawStore
) -> Normalised:
    """Parse the batched endpoint's pages ~BATCH_BYTES at a time, read straight from the
    raw store (each batch with every page of the other endpoints), so a million-item
    crawl never sits in memory whole."""
    big = connector.batched_endpoint
    rest = pages_frame(raw.with_payloads(index.filter(pl.col("endpoint") != big), store))
    index = index.filter(pl.col("endpoint") == big)
    batches: list[Normalised] = []
    for batch in raw.iter_batches(index, store, BATCH_BYTES):
        pages = pages_frame(batch)
        if rest.height:
            pages = pl.concat([rest, pages], how="vertical")
        batches.append(normalise(connector.parse(pages).offers))
    if not batches and rest.height:  # only the other endpoints have pages
        batches.append(normalise(connector.parse(rest).offers))
    if not batches:
        raise UnexpectedResponse(connector.name, big, "no current pages to parse")
    return combine(batches)


def unique_offers(offers: pl.DataFrame) -> pl.DataFrame:
    """One staged row per offer key (checked once, here; history relies on it): where a
    source lists a key twice, the latest fetch wins, then the lower price."""
    if not offers.select(pl.struct(OFFER_KEY).is_duplicated().any()).item():
        return offers
    return offers.sort(
        ["fetched_at", "price_usd_per_hour"], descending=[True, False], nulls_last=True
    ).unique(OFFER_KEY, keep="first", maintain_order=True)


def _since(con, index: pl.DataFrame, connector: Connector, run_id: str) -> pl.DataFrame:
    """`index` without the series endpoints' pages that a successful load of `run_id` (the
    last parse) or of an earlier run listed: those were parsed. By sha256, not by the load
    that first stored a page: that load may have failed, its pages parsed by none."""
    appended = [series.endpoint for _, series in connector.series_tables]
    parsed = db.query(
        con,
        """SELECT DISTINCT p.sha256 FROM _load_pages p JOIN _loads l ON l.load_id = p.load_id
           WHERE l.provider = $p AND l.status = 'ok' AND l.run_id <= $r
             AND l.endpoint IN (SELECT unnest($e))""",
        {"p": connector.name, "r": run_id, "e": appended},
    )["sha256"]
    return index.filter(~pl.col("endpoint").is_in(appended) | ~pl.col("sha256").is_in(parsed.implode()))


def _latest(con, connector: Connector) -> dict[str, pl.DataFrame]:
    """The newest stored row of each series of the connector's series tables: what its
    parse gets in place of the series pages it does not re-read."""
    latest = {}
    for table, series in connector.series_tables:
        latest[table.name] = db.query(
            con,
            f"""SELECT * FROM {table.name} QUALIFY row_number() OVER (
                    PARTITION BY {", ".join(series.series)} ORDER BY {series.time} DESC) = 1""",
        )
    return latest


def _append_rows(con, table: StagedTable, series: Series, rows: pl.DataFrame) -> None:
    """Add the rows of the newly landed series pages whose key is not staged yet (one
    staged row per key, checked here, once: an earlier load keeps a row that a later page
    repeats)."""
    con.register("_new_rows", rows.to_arrow())
    try:
        same = " AND ".join(f"t.{c} IS NOT DISTINCT FROM n.{c}" for c in series.key)
        run(
            con,
            f"""INSERT INTO {table.name} BY NAME
                SELECT n.* FROM _new_rows n ANTI JOIN {table.name} t ON {same}""",
        )
    finally:
        con.unregister("_new_rows")


def _stage_provider(
    con,
    run_id: str,
    name: str,
    summary: ProviderSummary,
    store: RawStore | None = None,
    *,
    max_drop_pct: float = 0.0,
) -> bool:
    """Parse and stage a provider's current pages; False (nothing done) when they and the
    parsing code are the ones its staged offers came from. Raises `OfferDrop` when its
    offers fall by more than `max_drop_pct` percent from the ones staged (0: no limit)."""
    connector = registry.get(name)
    store = store or RawStore.beside(_database_path(con))
    index = raw.current_index(con, name, connector.endpoints)  # the ledger only
    digest = raw.pages_digest(index)
    code = code_digest(name)
    staged = run(
        con, "SELECT pages_digest, code_digest, run_id FROM _staged WHERE connector = ?", [name]
    )
    if staged and staged[0][:2] == (digest, code):
        summary.reused = True
        summary.loaded = run(con, f"SELECT count(*) FROM {connector.staging_table}")[0][0]
        return False
    # same parsing code as the last parse: a series endpoint's older pages are parsed
    # already (their rows are staged), so only the pages landed since then are read
    since = staged[0][2] if staged and staged[0][1] == code and connector.series_tables else None
    if connector.batched_endpoint:
        result = _normalise_in_batches(connector, index, store)
    else:
        if since is not None:
            index = _since(con, index, connector, since)
        pages = pages_frame(raw.with_payloads(index, store))
        parsed = connector.parse(pages, None if since is None else _latest(con, connector))
        del pages  # the payloads are the bulk of a refresh's memory: gone before normalising
        for table in connector.staged:
            if since is not None and table.series is not None:
                _append_rows(con, table, table.series, parsed.staged[table.name])
            else:
                staging.replace_staged(con, table.name, parsed.staged[table.name], ddl=table.ddl)
        result = normalise(parsed.offers)
        del parsed
    if result.offers.is_empty():
        # a price source that answers with no prices is broken (schema drift, an error
        # body with HTTP 200): keep the last good offers rather than retract them all
        raise UnexpectedResponse(
            name,
            "*",
            f"the current pages parse to no offers ({result.rejected.height} rejected, "
            f"{int(result.excluded['n'].sum()) if result.excluded.height else 0} excluded); "
            "keeping the last good data",
        )
    offers = unique_offers(result.offers)
    _check_drop(con, connector.staging_table, name, offers.height, max_drop_pct)
    staging.replace_staged(con, connector.staging_table, offers)
    summary.rejected = staging.quarantine(con, result.rejected, utc_now())
    summary.loaded = offers.height
    summary.excluded = int(result.excluded["n"].sum()) if result.excluded.height else 0
    summary.unknown_gpu = int(result.unknown_gpu["n"].sum()) if result.unknown_gpu.height else 0
    counts = (
        pl.concat(
            [
                offers.group_by("load_id").len("rows"),
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


def _hold_back(
    con, refreshed: list[str], summaries: dict[str, ProviderSummary], checks
) -> None:
    """The plausibility rules (warehouse.plausibility) over the re-staged providers: what
    they hold back is quarantined and counted in the provider's summary, and a GPU without
    a reference row is named there."""
    series = [
        plausibility.SeriesTable(name, table.name, (*s.series, s.time))
        for name in refreshed
        for table, s in registry.get(name).series_tables
    ]
    held = plausibility.hold_back(con, refreshed, series, checks, utc_now())
    for name, n in held.quarantined.items():
        if name in summaries:
            summaries[name].rejected += n
            summaries[name].loaded -= held.offers.get(name, 0)
            summaries[name].notes.extend(held.unknown_gpus.get(name, []))


class OfferDrop(PricingError):
    """A provider's offers fell by more than the allowed share from its last good load: its
    previous offers are kept (a drifted or half-empty source), unless accepted."""


def _check_drop(con, table: str, name: str, now: int, max_drop_pct: float) -> None:
    if max_drop_pct <= 0:
        return
    exists = run(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [table])
    before = run(con, f"SELECT count(*) FROM {table}")[0][0] if exists else 0
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


def load_and_publish(
    path: Path,
    fetched: dict[str, Iterable[Page | FetchFailure]],
    *,
    source: str,
    run_id: str | None = None,
    checks: plausibility.Checks | None = None,
    accept_drop: Collection[str] = (),
    alerts: Callable[[Any], Any] | None = None,
) -> RunSummary:
    """Land, parse, stage, check, merge, assert and publish. `checks`: the plausibility
    figures (gpu-pricing.toml's [checks]; defaults: warehouse.plausibility.Checks);
    `accept_drop`: connectors whose fall in offers beyond `checks.max_drop_pct` is
    accepted this once (`refresh --accept-drop`). `alerts`, when given, is called with the
    build's connection once its marts are current, before the publish: it reads them as
    built (no second build); its writes are one transaction, and its failure is logged and
    rolled back, never failing the refresh."""
    checks = checks or plausibility.Checks()
    run_id = run_id or raw.new_run_id()
    started = utc_now()
    fetched = dict(fetched)  # popped below; the caller's dict stays as it was
    summaries: dict[str, ProviderSummary] = {}
    timings: dict[str, float] = {}
    clock = time.perf_counter()

    def lap(stage: str) -> None:
        nonlocal clock
        now = time.perf_counter()
        timings[stage] = timings.get(stage, 0.0) + now - clock
        clock = now
        progress.done_now("warehouse", stage, timings[stage])

    store = RawStore.beside(path)
    with db.building(path) as con:
        lap("copy")
        store.discard_partial()  # under the refresh lock: a killed refresh's temp files
        if raw.legacy_tables(con):  # written before the raw store: moved out, once
            raw.migrate_legacy(con, store)
            lap("migrate")
        run(
            con,
            "INSERT INTO _runs (run_id, started_at, source, providers) VALUES (?, ?, ?, ?)",
            [run_id, started, source, ",".join(fetched)],
        )
        for connector in registry.PROVIDERS.values():
            run(con, staging_ddl(connector.staging_table))
            for migration in staging_migrations(connector.staging_table):
                run(con, migration)
            for table in connector.staged:
                run(con, table.ddl)
        refreshed = []
        for name in list(fetched):
            connector = registry.get(name)
            summary = summaries[name] = ProviderSummary(name)
            # pop: the pages are in the raw store now, and parse reads them back from it
            with progress.step(name, "land") as landing:
                loads = raw.land(
                    con, run_id, name, connector.endpoints, fetched.pop(name), store
                )
            summary.land_seconds = round(landing.seconds, 3)
            for load in loads:
                summary.fetched += load.pages
                summary.unchanged += load.pages_unchanged
                where = f"{load.endpoint}/{load.scope or '*'}: {load.error}"
                if load.status == "failed":
                    summary.failed.append(where)
                elif load.status == "skipped":
                    summary.skipped.append(where)
            if any(ld.status == "ok" for ld in loads):
                refreshed.append(name)
        lap("land")
        for name in list(refreshed):
            try:
                # one transaction: a provider that fails half-way keeps every staged
                # table it had (its series and specs as well as its offers)
                with progress.step(name, "parse/stage") as staging_step, db.transaction(con):
                    staged = _stage_provider(
                        con,
                        run_id,
                        name,
                        summaries[name],
                        store,
                        max_drop_pct=0.0 if name in accept_drop else checks.max_drop_pct,
                    )
                if not staged:
                    refreshed.remove(name)  # unchanged: its staged offers and history stand
            except (PricingError, pl.exceptions.PolarsError, DamagedObject) as exc:
                # a provider whose pages no longer parse (or whose raw object is damaged)
                # keeps its last staged offers (and its history stays open); the others
                # still publish
                log.error("%s: parse failed, keeping its last good data: %s", name, one_line(exc))
                summaries[name].failed.append(f"parse: {one_line(exc)}")
                summaries[name].parse_failed = True
                refreshed.remove(name)
            finally:
                summaries[name].stage_seconds = round(staging_step.seconds, 3)
        lap("parse_stage")
        sql = sql_digest()
        asserted = run(
            con,
            """SELECT asserted_sql FROM _runs WHERE status = 'ok'
               ORDER BY started_at DESC LIMIT 1""",
        )

        def check_alerts() -> None:
            if alerts is None:
                return
            try:
                with db.transaction(con):
                    alerts(con)
            except Exception as exc:  # the refresh publishes all the same
                log.error("alerts check failed (the refresh itself is published): %s", exc)
            lap("alerts")

        if refreshed or asserted != [(sql,)]:
            sql_runner.load_seeds(con)
            sql_runner.build_views(con)
            _hold_back(con, refreshed, summaries, checks)
            merged = history.merge(con, refreshed, utc_now())
            lap("history")
            with sql_runner.computed_once(con):  # each intermediate view computed once
                sql_runner.materialise(con)
                lap("materialise")
                results = sql_runner.assert_healthy(con)
                lap("assertions")
                check_alerts()  # the alert inputs read the intermediate views held here too
        else:  # nothing re-staged, same SQL: the published data passed these assertions
            merged, results = {"opened": 0, "closed": 0}, []
            check_alerts()
        run(
            con,
            "UPDATE _runs SET finished_at = ?, status = ?, asserted_sql = ? WHERE run_id = ?",
            [utc_now(), "ok", sql, run_id],
        )
    lap("publish")
    return RunSummary(
        run_id=run_id,
        warehouse=str(path),
        source=source,
        providers=list(summaries.values()),
        history=merged,
        assertions={r.name: r.failures for r in results},
        timings={k: round(v, 3) for k, v in timings.items()},
    )
