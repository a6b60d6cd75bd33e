"""Raw landing and the `_loads` ledger.

`raw_<provider>__<endpoint>` is append-only: one row per page (or file) with its load,
fetch time, request, source URL, sha256 and payload. A page whose sha256 is already stored
is counted as unchanged and not stored again; `_load_pages` still lists it under the new
load, so the current state of an endpoint can be read back through the ledger.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import duckdb
import polars as pl

from warehouse.db import insert_frame, query, run
from warehouse.schemas import raw_ddl

log = logging.getLogger(__name__)


@dataclass
class Load:
    load_id: str
    provider: str
    endpoint: str
    scope: str
    started_at: datetime
    status: str = "ok"
    pages: int = 0
    pages_unchanged: int = 0
    error: str | None = None
    source_version: str | None = None
    page_rows: list[dict[str, Any]] = field(default_factory=list)


def _now() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def new_run_id() -> str:
    # microseconds: run ids (and so load ids) sort in time order even within a second
    return f"{_now():%Y%m%dT%H%M%S.%fZ}-{uuid.uuid4().hex[:8]}"


def _load_id(run_id: str, provider: str, endpoint: str, scope: str) -> str:
    return f"{run_id}:{provider}:{endpoint}:{scope or '-'}"


def land(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    provider: str,
    endpoints: Iterable[str],
    items: Iterable[Any],
) -> list[Load]:
    """Land pages and fetch failures for one provider. Returns one Load per
    (endpoint, scope) seen, already written to `_loads`."""
    for endpoint in endpoints:
        run(con, raw_ddl(f"raw_{provider}__{endpoint}"))
    loads: dict[tuple[str, str], Load] = {}
    known: dict[str, set[str]] = {}
    batches: dict[str, dict[str, list[Any]]] = {}
    batch_bytes = 0
    for item in items:
        key = (item.endpoint, str(getattr(item, "scope", "")))
        load = loads.get(key)
        if load is None:
            load = loads[key] = Load(
                _load_id(run_id, provider, *key), provider, key[0], key[1], _now()
            )
        if hasattr(item, "error"):  # a FetchFailure: skipped (no credentials) or failed
            load.status = "skipped" if item.skipped else "failed"
            load.error = str(item.error)
            continue
        table = f"raw_{provider}__{item.endpoint}"
        if table not in known:
            run(con, raw_ddl(table))
            known[table] = set(query(con, f"SELECT _sha256 FROM {table}")["_sha256"].to_list())
        sha = item.sha256
        unchanged = sha in known[table]
        load.pages += 1
        load.pages_unchanged += unchanged
        load.page_rows.append(
            {"load_id": load.load_id, "seq": load.pages, "sha256": sha, "unchanged": unchanged}
        )
        version = item.request.get("source_version") if isinstance(item.request, dict) else None
        load.source_version = version or load.source_version
        if unchanged:
            continue
        known[table].add(sha)
        payload = item.payload
        columns = batches.setdefault(table, {c: [] for c in _RAW_SCHEMA})
        for column, value in zip(
            _RAW_SCHEMA,
            (
                load.load_id,
                item.fetched_at,
                key[1],
                item.source_url,
                json.dumps(item.request, sort_keys=True, default=str),
                sha,
                _now(),
                payload,
            ),
            strict=True,
        ):
            columns[column].append(value)
        batch_bytes += len(payload)
        if batch_bytes > _BATCH_BYTES:  # bound the copies a large refresh holds at once
            _flush(con, batches)
            batch_bytes = 0
    _flush(con, batches)
    page_rows = [r for load in loads.values() for r in load.page_rows]
    if page_rows:
        insert_frame(con, "_load_pages", pl.DataFrame(page_rows))
    ledger = pl.DataFrame(
        [
            {
                "load_id": ld.load_id,
                "run_id": run_id,
                "provider": ld.provider,
                "endpoint": ld.endpoint,
                "scope": ld.scope,
                "status": ld.status,
                "started_at": ld.started_at,
                "finished_at": _now(),
                "pages": ld.pages,
                "pages_unchanged": ld.pages_unchanged,
                "error": ld.error,
                "source_version": ld.source_version,
            }
            for ld in loads.values()
        ],
        schema=_LOADS_SCHEMA,
    )
    insert_frame(con, "_loads", ledger)
    return list(loads.values())


_BATCH_BYTES = 16 << 20


def _flush(con: duckdb.DuckDBPyConnection, batches: dict[str, dict[str, list[Any]]]) -> None:
    for table, columns in batches.items():
        insert_frame(con, table, pl.DataFrame(columns, schema=_RAW_SCHEMA))
    batches.clear()


_RAW_SCHEMA = {
    "_load_id": pl.String,
    "_fetched_at": pl.Datetime("us"),
    "_scope": pl.String,
    "_source_url": pl.String,
    "_request": pl.String,
    "_sha256": pl.String,
    "_ingested_at": pl.Datetime("us"),
    "_payload": pl.String,
}
_LOADS_SCHEMA = {
    "load_id": pl.String,
    "run_id": pl.String,
    "provider": pl.String,
    "endpoint": pl.String,
    "scope": pl.String,
    "status": pl.String,
    "started_at": pl.Datetime("us"),
    "finished_at": pl.Datetime("us"),
    "pages": pl.Int32,
    "pages_unchanged": pl.Int32,
    "error": pl.String,
    "source_version": pl.String,
}


def _current_sql(table: str, mode: str, payload: bool) -> str:
    latest = (
        ""
        if mode == "append"
        else """
        AND l.load_id IN (
            SELECT arg_max(load_id, started_at) FROM _loads
            WHERE provider = $provider AND endpoint = $endpoint AND status = 'ok'
            GROUP BY scope)"""
    )
    return f"""
        WITH current_pages AS (  -- page hashes only: never hash or sort payloads
            SELECT DISTINCT p.sha256
            FROM _load_pages p
            JOIN _loads l ON l.load_id = p.load_id
            WHERE l.provider = $provider AND l.endpoint = $endpoint AND l.status = 'ok'
            {latest}
        )
        SELECT $endpoint AS endpoint, r._load_id AS load_id,
               r._fetched_at AS fetched_at, r._scope AS scope,
               r._source_url AS source_url, r._request::VARCHAR AS request,
               {"r._payload AS payload" if payload else "strlen(r._payload) AS payload_bytes"},
               r._sha256 AS sha256
        FROM {table} r
        SEMI JOIN current_pages c ON c.sha256 = r._sha256
        """


def _landed(con: duckdb.DuckDBPyConnection, table: str) -> bool:
    return bool(run(con, "SELECT 1 FROM duckdb_tables() WHERE table_name = ?", [table]))


def current_pages(
    con: duckdb.DuckDBPyConnection,
    provider: str,
    endpoints: dict[str, str],
    *,
    payload: bool = True,
) -> pl.DataFrame:
    """The pages that make up the provider's current state, read back from raw.

    For a 'snapshot' endpoint: the pages of the latest successful load of each scope.
    For an 'append' endpoint (time series): every page of every successful load.
    `payload=False` gives the pages without their payloads (with `payload_bytes`).
    """
    frames = [
        query(
            con,
            _current_sql(f"raw_{provider}__{endpoint}", mode, payload),
            {"provider": provider, "endpoint": endpoint},
            batch_rows=32,  # pages are up to a few MB each
        )
        for endpoint, mode in endpoints.items()
        if _landed(con, f"raw_{provider}__{endpoint}")
    ]
    return pl.concat(frames, how="vertical_relaxed") if frames else pl.DataFrame()


def iter_current_pages(
    con: duckdb.DuckDBPyConnection, provider: str, endpoint: str, mode: str, pages_per_batch: int
) -> Iterator[pl.DataFrame]:
    """The same pages as `current_pages`, streamed in batches from one scan. The
    connection is busy until the iterator is exhausted (DuckDB 2.0): use no other
    statement on it meanwhile."""
    table = f"raw_{provider}__{endpoint}"
    if not _landed(con, table):
        return
    reader = con.sql(
        _current_sql(table, mode, payload=True), params={"provider": provider, "endpoint": endpoint}
    ).to_arrow_reader(batch_size=pages_per_batch)
    for batch in reader:
        yield pl.from_arrow(batch)  # type: ignore[misc]


def update_counts(con: duckdb.DuckDBPyConnection, run_id: str, counts: pl.DataFrame) -> None:
    """Write per-load rows/rejected/excluded/unknown_gpu counts for this run's loads."""
    if counts.is_empty():
        return
    con.register("_counts", counts.to_arrow())
    try:
        run(
            con,
            """
            UPDATE _loads SET rows = c.rows, rejected = c.rejected, excluded = c.excluded,
                              unknown_gpu = c.unknown_gpu
            FROM _counts c WHERE _loads.load_id = c.load_id AND _loads.run_id = $run_id
            """,
            {"run_id": run_id},
        )
    finally:
        con.unregister("_counts")
