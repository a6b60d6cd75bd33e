"""Composition of one refresh, without Prefect: the single writer.

`fetch_pages` gets a provider's pages (live or from a snapshot); `load_and_publish` lands
every provider's pages, re-parses each refreshed provider from raw, stages, quarantines,
merges history, rebuilds views, runs the assertions and publishes atomically. The Prefect
flow (flows/refresh.py) wraps these two in tasks.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import polars as pl

from connectors import _snapshot, registry
from connectors._normalise import Normalised, combine, normalise
from connectors._page import FetchContext, FetchFailure, Page, utc_now
from connectors.errors import PricingError, UnexpectedResponse
from flows import progress
from warehouse import db, history, raw, sql_runner, staging
from warehouse.db import run
from warehouse.schemas import staging_ddl, staging_migrations

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
    skipped: list[str] = field(default_factory=list)
    parse_failed: bool = False  # pages landed, but no offers could be staged from them
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


def fetch_pages(
    provider: str, snapshot: str | Path | None, ctx: FetchContext
) -> list[Page | FetchFailure]:
    connector = registry.get(provider)
    if snapshot is not None:
        return list(_snapshot.read_provider(_snapshot.resolve(snapshot), provider))
    return [i.compact() if isinstance(i, Page) else i for i in connector.fetch_live(ctx)]


def watermarks(path: Path, provider: str) -> dict[tuple[str, str], datetime]:
    """What incremental fetches start from, per (endpoint, scope) already published:
    - by default the newest successful load's finish time;
    - where the loads recorded a source version that is a timestamp (AWS offer files:
      Version "20250912225308" = its publication time), the newest version stored, so an
      unchanged file is recognised before it is downloaded;
    - for a time series whose points are staged (an extra staging table with `endpoint`,
      `region` and `observed_at` columns: AWS spot price history), the newest point stored
      per region, so the next fetch starts where the stored series ends.
    Empty when the warehouse does not exist yet."""
    if not path.exists():
        return {}
    con = db.connect_readonly(path)
    try:
        rows = db.query(
            con,
            """SELECT endpoint, scope,
                      coalesce(max(try_strptime(source_version, '%Y%m%d%H%M%S')),
                               max(l.finished_at)) AS at
               FROM _loads l WHERE provider = $p AND status = 'ok' GROUP BY ALL""",
            {"p": provider},
        )
        for table in registry.get(provider).extra_staging:
            columns = db.query(
                con,
                "SELECT column_name FROM duckdb_columns() WHERE table_name = $t",
                {"t": table},
            )["column_name"].to_list()
            if {"endpoint", "region", "observed_at"} <= set(columns):
                points = db.query(
                    con,
                    f"""SELECT endpoint, region AS scope, max(observed_at) AS at
                        FROM {table} GROUP BY ALL""",
                )
                rows = pl.concat([rows, points], how="vertical_relaxed").unique(
                    ["endpoint", "scope"], keep="last", maintain_order=True
                )
    finally:
        con.close()
    return {(r["endpoint"], r["scope"]): r["at"] for r in rows.iter_rows(named=True)}


BATCH_BYTES = 64 << 20


def _normalise_in_batches(con, connector) -> Normalised:
    """Parse the batched endpoint's pages ~BATCH_BYTES at a time, streamed from one scan
    of raw (each batch with every page of the other endpoints), so a million-item crawl
    never sits in memory whole."""
    big = connector.batched_endpoint
    others = {e: m for e, m in connector.endpoints.items() if e != big}
    rest = raw.current_pages(con, connector.name, others)
    batches: list[Normalised] = []
    pending: list[pl.DataFrame] = []
    pending_bytes = 0

    def flush() -> None:
        nonlocal pending_bytes
        pages = pl.concat([rest, *pending] if rest.height else pending, how="vertical_relaxed")
        batches.append(normalise(connector.parse(pages), flag_spot=False))
        pending.clear()
        pending_bytes = 0

    stream = raw.iter_current_pages(con, connector.name, big, connector.endpoints[big], 16)
    for chunk in stream:
        pending.append(chunk)
        pending_bytes += int(chunk["payload"].str.len_bytes().sum())
        if pending_bytes >= BATCH_BYTES:
            flush()
    if pending or (not batches and rest.height):  # the tail; or only the other endpoints
        flush()
    if not batches:
        raise UnexpectedResponse(connector.name, big, "no current pages to parse")
    return combine(batches)


def _stage_provider(con, run_id: str, name: str, summary: ProviderSummary) -> None:
    connector = registry.get(name)
    if connector.batched_endpoint and not connector.extra_staging:
        result = _normalise_in_batches(con, connector)
    else:
        pages = raw.current_pages(con, name, connector.endpoints)
        parsed = connector.parse(pages)
        for table, (ddl, parser) in connector.extra_staging.items():
            staging.replace_staged(con, table, parser(pages), ddl=ddl)
        del pages  # the payloads are the bulk of a refresh's memory: gone before normalising
        result = normalise(parsed)
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
    staging.replace_staged(con, connector.staging_table, result.offers)
    summary.rejected = staging.quarantine(con, result.rejected, utc_now())
    summary.loaded = result.offers.height
    summary.excluded = int(result.excluded["n"].sum()) if result.excluded.height else 0
    summary.unknown_gpu = int(result.unknown_gpu["n"].sum()) if result.unknown_gpu.height else 0
    counts = (
        pl.concat(
            [
                result.offers.group_by("load_id").len("rows"),
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


def load_and_publish(
    path: Path,
    fetched: dict[str, Iterable[Page | FetchFailure]],
    *,
    source: str,
    run_id: str | None = None,
) -> RunSummary:
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

    with db.building(path) as con:
        lap("copy")
        run(
            con,
            "INSERT INTO _runs (run_id, started_at, source, providers) VALUES (?, ?, ?, ?)",
            [run_id, started, source, ",".join(fetched)],
        )
        for connector in registry.PROVIDERS.values():
            run(con, staging_ddl(connector.staging_table))
            for migration in staging_migrations(connector.staging_table):
                run(con, migration)
            for ddl, _ in connector.extra_staging.values():
                run(con, ddl)
        refreshed = []
        for name in list(fetched):
            connector = registry.get(name)
            summary = summaries[name] = ProviderSummary(name)
            # pop: the pages are in the warehouse now, and parse reads them back from raw
            with progress.step(name, "land") as landing:
                loads = raw.land(con, run_id, name, connector.endpoints, fetched.pop(name))
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
        # raw payloads are the bulk of what a refresh writes: persisted (compressed) now,
        # they leave DuckDB's memory before the parse needs it
        run(con, "CHECKPOINT")
        lap("land")
        for name in list(refreshed):
            try:
                with progress.step(name, "parse/stage") as staging_step:
                    _stage_provider(con, run_id, name, summaries[name])
            except (PricingError, pl.exceptions.PolarsError) as exc:
                # a provider whose pages no longer parse keeps its last staged offers (and
                # its history stays open); the others still publish
                log.error("%s: parse failed, keeping its last good data: %s", name, exc)
                summaries[name].failed.append(f"parse: {exc}")
                summaries[name].parse_failed = True
                refreshed.remove(name)
            finally:
                summaries[name].stage_seconds = round(staging_step.seconds, 3)
        lap("parse_stage")
        sql_runner.load_seeds(con)
        sql_runner.build_views(con)
        merged = history.merge(con, refreshed, utc_now())
        lap("history")
        results = sql_runner.assert_healthy(con)
        lap("assertions")
        run(
            con,
            "UPDATE _runs SET finished_at = ?, status = ? WHERE run_id = ?",
            [utc_now(), "ok", run_id],
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
