"""Raw landing and the `_loads` ledger.

Each page's body bytes go to the raw store beside the warehouse (warehouse.rawstore),
content-addressed by sha256; the warehouse keeps only the ledger: `_loads` (one row per
provider, endpoint and scope a run fetched) and `_load_pages` (one row per page of each
load: its sha256, fetch time, request, source URL and size). A page whose sha256 an
earlier load already listed is counted as unchanged; it costs one hash and one ledger
row, and its bytes are not written again; a snapshot page whose file is unchanged on
disk since it was last landed is not even read: its recorded sha256 is taken
(warehouse.snapshot_files). The current state of an endpoint is read back
through the ledger, and its pages' bytes straight from the store.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections import Counter, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

import duckdb

from common.redact import credential_values
from common.schemas import canonical_json, raw_table_source, utc_now
from connectors.kit import provenance
from warehouse.db import query, run
from warehouse.rawstore import REPAIR, DamagedObject, RawStore
from warehouse.snapshot_files import RecordedPage

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.page import Page

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


def new_run_id() -> str:
    # microseconds: run ids (and so load ids) sort in time order even within a second
    return f"{utc_now():%Y%m%dT%H%M%S.%fZ}-{uuid.uuid4().hex[:8]}"


def _load_id(run_id: str, provider: str, endpoint: str, scope: str) -> str:
    return f"{run_id}:{provider}:{endpoint}:{scope or '-'}"


@dataclass
class Landed:
    """One provider's pages in the store (`store_pages`), not yet in the ledger (`record`):
    its loads and, per page, the ledger's columns."""

    loads: list[Load]
    rows: dict[str, list[Any]]


def store_pages(
    run_id: str,
    provider: str,
    items: Iterable[Any],
    store: RawStore,
    *,
    compare: bool = False,
    keep: bool = False,
    on_write: Callable[[], None] | None = None,
) -> Landed:
    """Put one provider's pages into the store, and note its fetch failures: one Load per
    (endpoint, scope) seen, one ledger row per page, written by `record`. A page already
    stored costs its hash and a look at its object's frame (`RawStore.put`); with
    `compare` (the full check) each stored object is decompressed and compared with the
    page's bytes, and rewritten when it differs. `keep`: the pages written now are held
    for the parse that follows (`RawStore.keep`). `on_write` is called once, as soon as a
    page not stored before has been written (a parse will follow: an unchanged landing
    never calls it)."""
    loads: dict[tuple[str, str], Load] = {}
    rows: dict[str, list[Any]] = {c: [] for c in _PAGE_TYPES if c != "sha256"}
    shas: list[str] = []
    pool = ThreadPoolExecutor(2)
    pending: deque[Future[str]] = deque()
    credentials = credential_values()  # what each page's stored bytes must mask
    written_before = store.written_bytes  # the store's count since it was opened
    try:
        for item in items:
            key = (item.endpoint, str(getattr(item, "scope", "")))
            load = loads.get(key)
            if load is None:
                load = loads[key] = Load(
                    _load_id(run_id, provider, *key), provider, key[0], key[1], utc_now()
                )
            if hasattr(item, "error"):  # a FetchFailure: skipped (no credentials) or failed
                load.status = "skipped" if item.skipped else "failed"
                load.error = str(item.error)
                continue
            request = canonical_json(item.request)
            if isinstance(item, RecordedPage):  # its file and object as recorded: not read
                size = item.size
                pending.append(_named(item.sha256))
            else:
                data = item.stored_bytes(credentials)  # as read: hashed and stored as they are
                size = len(data)
                # hashed, checked against its stored object or compressed and written, on
                # a worker while the next page is read
                pending.append(pool.submit(_put, store, item, request, data, compare, keep))
            if len(pending) >= _IN_FLIGHT:  # bound the pages held in memory
                shas.append(pending.popleft().result())
            if on_write is not None and store.written_bytes > written_before:
                on_write()
                on_write = None
            load.pages += 1
            for column, value in zip(
                rows,
                (
                    load.load_id,
                    load.pages,
                    item.fetched_at,
                    request,
                    item.source_url,
                    size,
                    item.format,
                    provenance.text(item.provenance),
                ),
                strict=True,
            ):
                rows[column].append(value)
            version = (
                item.request.get("source_version") if isinstance(item.request, dict) else None
            )
            load.source_version = version or load.source_version
        shas.extend(future.result() for future in pending)
    finally:
        pool.shutdown(cancel_futures=True)
    store.end_landing()  # its pack finished: the next provider's landing packs its own
    return Landed(list(loads.values()), {**rows, "sha256": shas})


def record(con: duckdb.DuckDBPyConnection, run_id: str, landed: list[Landed],
           store: RawStore) -> None:  # fmt: skip
    """Write the ledger of pages stored by `store_pages` (of one provider or several: one
    statement for each ledger table, whatever their number), once the store has synced
    the objects it names; each Load gets its count of unchanged pages."""
    store.sync()  # the objects are durable before the ledger naming them is published
    rows = {c: [v for one in landed for v in one.rows[c]] for c in _PAGE_TYPES}
    loads = [load for one in landed for load in one.loads]
    if rows["sha256"]:
        # unchanged = listed by an earlier load (or earlier in this one); the load of each
        # unchanged page written is handed back, to be counted
        unchanged = Counter(
            load_id
            for (load_id,) in run(
                con,
                f"""
                INSERT INTO _load_pages BY NAME
                SELECT f.*,
                       f.sha256 IN (SELECT sha256 FROM _load_pages)
                       OR row_number() OVER (PARTITION BY f.sha256 ORDER BY f.load_id, f.seq) > 1
                       AS unchanged
                FROM ({_columns(_PAGE_TYPES)}) f
                RETURNING CASE WHEN unchanged THEN load_id END
                """,
                rows,
            )
        )
        for ld in loads:
            ld.pages_unchanged = unchanged[ld.load_id]
    if loads:
        # every column a Load carries, and the two the run gives all of them
        per_run = {"run_id": run_id, "finished_at": utc_now()}
        ledger = {
            column: [per_run[column]] * len(loads)
            if column in per_run
            else [getattr(ld, column) for ld in loads]
            for column in _LOADS_TYPES
        }
        run(con, f"INSERT INTO _loads BY NAME {_columns(_LOADS_TYPES)}", ledger)


def _put(
    store: RawStore, item: Page, request: str, data: bytes, compare: bool, keep: bool
) -> str:
    """Store one page (`RawStore.put_page`) and tell the page the name it was stored by."""
    sha256 = store.put_page(request, data, compare=compare, keep=keep)
    item.stored_as(sha256)
    return sha256


def _named(sha256: str) -> Future[str]:
    done: Future[str] = Future()
    done.set_result(sha256)
    return done


def _columns(types: dict[str, str]) -> str:
    """A SELECT of one row per element of equally long list parameters, one per column
    (named as the column, typed as `types` says): the ledger's rows handed to DuckDB as
    columns, no frame library between."""
    return "SELECT " + ", ".join(f"unnest(${c}::{t}[]) AS {c}" for c, t in types.items())


_IN_FLIGHT = 8

# the ledger rows a landing writes, as the warehouse types them (common.schemas)
_PAGE_TYPES = {
    "load_id": "VARCHAR",
    "seq": "INTEGER",
    "sha256": "VARCHAR",
    "fetched_at": "TIMESTAMP",
    "request": "VARCHAR",
    "source_url": "VARCHAR",
    "bytes": "BIGINT",
    "format": "VARCHAR",
    "provenance": "VARCHAR",  # a recorded page's statement (connectors/kit/provenance.py)
}
_LOADS_TYPES = {
    "load_id": "VARCHAR",
    "run_id": "VARCHAR",
    "provider": "VARCHAR",
    "endpoint": "VARCHAR",
    "scope": "VARCHAR",
    "status": "VARCHAR",
    "started_at": "TIMESTAMP",
    "finished_at": "TIMESTAMP",
    "pages": "INTEGER",
    "pages_unchanged": "INTEGER",
    "error": "VARCHAR",
    "source_version": "VARCHAR",
}


def _first_stored(*by: str) -> str:
    """The one row of each stored page (per `by`, the page's sha256 and what else keeps pages
    apart) that carries its lineage: the load that first stored it."""
    return f"QUALIFY row_number() OVER (PARTITION BY {', '.join(by)} ORDER BY p.load_id, p.seq) = 1"


def stored_pages(con: duckdb.DuckDBPyConnection, load_id: str | None = None) -> pl.DataFrame:
    """Every page the raw store holds (or those of one load), once each, from the ledger:
    provider, endpoint, fetched_at, request, source_url, sha256, format."""
    return query(
        con,
        f"""SELECT l.provider, l.endpoint, p.fetched_at, p.request, p.source_url, p.sha256,
                   p.format,
                   -- the statement as the newest load listing the page says
                   (SELECT arg_max(q.provenance, q.load_id) FROM _load_pages q
                    WHERE q.sha256 = p.sha256) AS provenance
            FROM _load_pages p JOIN _loads l ON l.load_id = p.load_id
            WHERE NOT p.unchanged AND ($load_id IS NULL OR p.sha256 IN (
                  SELECT sha256 FROM _load_pages WHERE load_id = $load_id))
            {_first_stored("p.sha256")}
            ORDER BY l.provider, l.endpoint, p.fetched_at, p.sha256""",
        {"load_id": load_id},
    )


# The pages that make up each provider's current state, of every endpoint named, in one
# read ($wanted: provider, endpoint, whether its mode is 'append', its position): for a
# 'snapshot' endpoint the pages of the latest successful load of each scope, for an
# 'append' one (a time series) every page of every successful load. Each current page
# comes with the load that first stored it: its lineage (load_id, fetched_at, scope), as
# when the payload itself was kept in the warehouse.
_CURRENT_SQL = f"""
    WITH wanted AS (
        SELECT w.provider, w.endpoint, w.append, w.pos FROM (SELECT unnest($wanted) AS w)
    ),
    latest AS (
        SELECT arg_max(l.load_id, l.started_at) AS load_id
        FROM _loads l JOIN wanted w ON w.provider = l.provider AND w.endpoint = l.endpoint
        WHERE l.status = 'ok'
        GROUP BY l.provider, l.endpoint, l.scope
    ),
    current_pages AS (
        -- a recorded page's provenance statement as the newest load listing it says
        SELECT l.provider, l.endpoint, p.sha256, arg_max(p.provenance, p.load_id) AS provenance
        FROM _load_pages p
        JOIN _loads l ON l.load_id = p.load_id
        JOIN wanted w ON w.provider = l.provider AND w.endpoint = l.endpoint
        WHERE l.status = 'ok' AND (w.append OR l.load_id IN (SELECT load_id FROM latest))
        GROUP BY l.provider, l.endpoint, p.sha256
    ),
    stored AS (
        SELECT p.* REPLACE (c.provenance AS provenance), c.provider AS current_provider,
               c.endpoint AS current_endpoint
        FROM _load_pages p JOIN current_pages c ON c.sha256 = p.sha256
        WHERE NOT p.unchanged
        {_first_stored("c.provider", "c.endpoint", "p.sha256")}
    )
    SELECT s.current_provider, s.current_endpoint AS endpoint, s.load_id, s.fetched_at,
           l.scope, s.source_url, s.request, s.bytes AS payload_bytes, s.sha256, s.provenance
    FROM stored s
    JOIN _loads l ON l.load_id = s.load_id
    JOIN wanted w ON w.provider = s.current_provider AND w.endpoint = s.current_endpoint
    ORDER BY s.current_provider, w.pos, s.load_id, s.seq
"""

# `current_pages`' columns (the rows of `_CURRENT_SQL`, less the provider), each with the
# Polars type `current_index` reads it as
_INDEX_COLUMNS = {
    "endpoint": "String", "load_id": "String", "fetched_at": "Datetime", "scope": "String",
    "source_url": "String", "request": "String", "payload_bytes": "Int64", "sha256": "String",
    "provenance": "String",
}  # fmt: skip


def current_pages(
    con: duckdb.DuckDBPyConnection, endpoints: dict[str, dict[str, str]]
) -> dict[str, list[tuple]]:
    """The pages that make up each provider's current state (`endpoints`: provider ->
    its endpoints and their modes), from the ledger alone (no payloads), as rows of
    `_INDEX_COLUMNS`, for every provider asked ([] where it has none). Read once per
    refresh, for both the digest that tells it whether to parse a provider
    (`pages_digest`) and the index a parse reads (`current_index`).

    For a 'snapshot' endpoint: the pages of the latest successful load of each scope.
    For an 'append' endpoint (time series): every page of every successful load.
    """
    wanted = [
        {"provider": provider, "endpoint": endpoint, "append": mode == "append", "pos": pos}
        for provider, modes in endpoints.items()
        for pos, (endpoint, mode) in enumerate(modes.items())
    ]
    pages: dict[str, list[tuple]] = {provider: [] for provider in endpoints}
    if wanted:
        for provider, *page in run(con, _CURRENT_SQL, {"wanted": wanted}):
            pages[provider].append(tuple(page))
    return pages


def current_index(pages: list[tuple]) -> pl.DataFrame:
    """A provider's `current_pages` as a frame, one column per `_INDEX_COLUMNS`."""
    import polars as pl

    schema = {column: getattr(pl, dtype) for column, dtype in _INDEX_COLUMNS.items()}
    return pl.DataFrame(pages, schema=schema, orient="row")


class _ArrowCArray:
    """An Arrow array seen only through the Arrow PyCapsule interface: Polars takes it as
    it is, where a pyarrow array passes Polars' pyarrow path, which loads pyarrow.compute
    (~0.2 s of start-up, ~0.7 s CPU of a nightly refresh at its threads' contention,
    measured) for nothing a single text column needs."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def __arrow_c_array__(self, requested_schema: object | None = None) -> tuple[object, object]:
        return self.array.__arrow_c_array__(requested_schema)


def with_payloads(index: pl.DataFrame, store: RawStore) -> pl.DataFrame:
    """The pages of `index` with their `payload` text, read straight from the store, each
    checked against its name (`DamagedObject` names the page, the object and the repair)."""
    import polars as pl

    if index.is_empty():
        return index.with_columns(pl.lit(None, dtype=pl.String).alias("payload"))
    try:
        texts = pl.Series(
            _ArrowCArray(store.texts(index["sha256"].to_list(), index["request"].to_list()))
        )
    except DamagedObject as exc:
        page = index.filter(pl.col("sha256") == exc.sha256).row(0, named=True)
        raise DamagedObject(
            exc.sha256,
            exc.path,
            f"{exc.cause} (page {page['endpoint']}/{page['scope'] or '*'} fetched "
            f"{page['fetched_at']:%Y-%m-%d %H:%M:%S}, {page['source_url']}); {REPAIR}",
        ) from None
    return index.with_columns(texts.alias("payload"))


def verify(con: duckdb.DuckDBPyConnection, store: RawStore) -> dict[str, Any]:
    """Check every object the ledger names (it decompresses, and its request and bytes hash
    to its name) and every object the store holds: `checked`, `damaged` (one line each,
    naming the provider and page), and `unreferenced` objects no load names (left by a
    refresh that failed before publishing; harmless, reused when fetched again)."""
    import polars as pl

    pages = query(
        con,
        f"""SELECT l.provider, l.endpoint, l.scope, p.fetched_at, p.sha256, p.request
            FROM _load_pages p JOIN _loads l ON l.load_id = p.load_id
            WHERE NOT p.unchanged {_first_stored("p.sha256")}
            ORDER BY l.provider, l.endpoint, l.scope, p.fetched_at""",
    )
    problems = store.verify(zip(pages["sha256"], pages["request"], strict=True))
    by_sha = {p.sha256: p for p in problems}
    damaged = [
        f"{r['provider']}: page {r['endpoint']}/{r['scope'] or '*'} fetched "
        f"{r['fetched_at']:%Y-%m-%d %H:%M:%S}: {by_sha[r['sha256']]}"
        for r in pages.filter(pl.col("sha256").is_in(list(by_sha))).iter_rows(named=True)
    ]
    named = set(pages["sha256"].to_list())
    unreferenced = sorted(store.names() - named)
    return {
        "store": str(store.root),
        "checked": pages.height,
        "damaged": damaged,
        "unreferenced": unreferenced,
    }


def iter_batches(
    index: pl.DataFrame, store: RawStore, batch_bytes: int
) -> Iterator[pl.DataFrame]:
    """The pages of `index` with payloads, about `batch_bytes` of payload at a time."""
    import polars as pl

    if index.is_empty():
        return
    batch = (pl.col("payload_bytes").cum_sum() - pl.col("payload_bytes")) // max(1, batch_bytes)
    for _, part in index.with_columns(_batch=batch).group_by("_batch", maintain_order=True):
        yield with_payloads(part.drop("_batch"), store)


def pages_digest(pages: Iterable[tuple]) -> str:
    """One sha256 over a provider's current pages (`current_pages`' rows): their endpoints,
    shas and provenance statements, sorted. Equal digests mean the same pages, so the same
    parse."""
    at = [list(_INDEX_COLUMNS).index(c) for c in ("endpoint", "sha256", "provenance")]
    # a page re-marked (its provenance) is parsed again; one never marked hashes as before
    # statements existed
    parts = sorted(":".join(page[i] for i in at if page[i] is not None) for page in pages)
    return hashlib.sha256("\n".join(parts).encode()).hexdigest() if parts else ""


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


# --- warehouses written before the raw store ------------------------------------------------


def legacy_stored_pages(
    con: duckdb.DuckDBPyConnection, table: str, load_id: str | None = None
) -> pl.DataFrame:
    """`stored_pages` of a warehouse not yet moved to the raw store (a `raw_*` table,
    one of `legacy_tables`), each with its `payload`."""
    provider, endpoint = raw_table_source(table)
    return query(
        con,
        f"""SELECT DISTINCT $provider AS provider, $endpoint AS endpoint,
                   r._fetched_at AS fetched_at, r._request::VARCHAR AS request,
                   r._source_url AS source_url, r._sha256 AS sha256,
                   CASE WHEN json_valid(r._payload) THEN 'json' ELSE 'csv' END AS format,
                   NULL::VARCHAR AS provenance, r._payload AS payload
            FROM {table} r
            WHERE $load_id IS NULL OR r._sha256 IN (
                SELECT sha256 FROM _load_pages WHERE load_id = $load_id)
            ORDER BY r._fetched_at, r._sha256""",
        {"load_id": load_id, "provider": provider, "endpoint": endpoint},
    )


def legacy_tables(con: duckdb.DuckDBPyConnection) -> list[str]:
    """`raw_<provider>__<endpoint>` tables: where payloads lived before the raw store."""
    return [
        r[0]
        for r in run(
            con,
            r"""SELECT table_name FROM duckdb_tables()
                WHERE schema_name = 'main' AND table_name LIKE 'raw\_%\_\_%' ESCAPE '\'
                ORDER BY table_name""",
        )
    ]


def migrate_legacy(con: duckdb.DuckDBPyConnection, store: RawStore) -> int:
    """Move the payloads of `raw_*` tables into the raw store (each under the sha256 the
    ledger already names it by), fill the ledger's page columns from them, and drop the
    tables. Returns the number of pages moved. Runs on the refresh's working copy, so a
    failure leaves the published warehouse as it was."""
    moved = 0
    for table in legacy_tables(con):
        reader = con.sql(f"SELECT _sha256, _payload FROM {table}").to_arrow_reader(
            batch_size=32
        )
        for batch in reader:
            for sha, payload in zip(
                batch.column(0).to_pylist(), batch.column(1).to_pylist(), strict=True
            ):
                store.put(sha, (payload or "").encode())
                moved += 1
        run(
            con,
            f"""
            UPDATE _load_pages p SET
                fetched_at = CASE WHEN p.load_id = r._load_id THEN r._fetched_at
                                  ELSE l.started_at END,
                request = json(r._request)::VARCHAR,
                source_url = r._source_url,
                bytes = strlen(coalesce(r._payload, '')),
                format = CASE WHEN json_valid(r._payload) THEN 'json' ELSE 'csv' END
            FROM {table} r, _loads l
            WHERE p.sha256 = r._sha256 AND l.load_id = p.load_id
            """,
        )
        run(con, f"DROP TABLE {table}")
    store.sync()
    if moved:
        log.info("moved %d raw pages out of the warehouse into %s", moved, store.root)
    return moved
