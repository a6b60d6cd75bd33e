"""`snapshot export`: the pages the ledger lists, their bytes from the raw store, back out
in the snapshot format (JSON bodies and files byte for byte as they were received)."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from connectors import _snapshot
from connectors._page import Page
from warehouse import db, raw
from warehouse.rawstore import RawStore
from warehouse.schemas import raw_table_source


def database_file(con) -> Path:
    (path,) = db.run(con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()")[0]
    return Path(path)


def _ledger_pages(con, load_id: str | None) -> pl.DataFrame:
    return db.query(
        con,
        """SELECT l.provider, l.endpoint, p.fetched_at, p.request, p.source_url, p.sha256,
                  p.format
           FROM _load_pages p JOIN _loads l ON l.load_id = p.load_id
           WHERE NOT p.unchanged AND ($load_id IS NULL OR p.sha256 IN (
                 SELECT sha256 FROM _load_pages WHERE load_id = $load_id))
           QUALIFY row_number() OVER (PARTITION BY p.sha256 ORDER BY p.load_id, p.seq) = 1
           ORDER BY l.provider, l.endpoint, p.fetched_at, p.sha256""",
        {"load_id": load_id},
    )


def _legacy_pages(con, table: str, load_id: str | None) -> pl.DataFrame:
    """The same from a warehouse not yet moved to the raw store (a `raw_*` table)."""
    provider, endpoint = raw_table_source(table)
    return db.query(
        con,
        f"""SELECT DISTINCT $provider AS provider, $endpoint AS endpoint,
                   r._fetched_at AS fetched_at, r._request::VARCHAR AS request,
                   r._source_url AS source_url, r._sha256 AS sha256,
                   CASE WHEN json_valid(r._payload) THEN 'json' ELSE 'csv' END AS format,
                   r._payload AS payload
            FROM {table} r
            WHERE $load_id IS NULL OR r._sha256 IN (
                SELECT sha256 FROM _load_pages WHERE load_id = $load_id)
            ORDER BY r._fetched_at, r._sha256""",
        {"load_id": load_id, "provider": provider, "endpoint": endpoint},
    )


def export_snapshot(
    con, directory: Path, load_id: str | None = None, store: RawStore | None = None
) -> dict[str, int]:
    store = store or RawStore.beside(database_file(con))
    legacy = raw.legacy_tables(con)
    frames = (
        [_legacy_pages(con, t, load_id) for t in legacy]
        if legacy
        else [_ledger_pages(con, load_id)]
    )
    counts: dict[str, int] = {}
    for frame in frames:
        for (provider, endpoint), part in frame.group_by(
            "provider", "endpoint", maintain_order=True
        ):
            pages = []
            for row in part.iter_rows(named=True):  # one row per page, not per record
                data = (
                    row["payload"].encode() if "payload" in row else store.get(row["sha256"])
                )
                path = None
                if row["format"] != "json":  # a file endpoint: copied byte for byte
                    path = _spill(directory, f"{provider}__{endpoint}", row, data)
                pages.append(
                    Page(
                        str(provider),
                        str(endpoint),
                        row["fetched_at"],
                        json.loads(row["request"]),
                        data=None if path else data,
                        path=path,
                        source_url=row["source_url"],
                    )
                )
            if pages:
                counts[f"{provider}/{endpoint}"] = _snapshot.write_pages(directory, pages)
                for p in pages:
                    if p.path is not None:
                        p.path.unlink()
    tmp = directory / ".export-tmp"
    if tmp.is_dir() and not any(tmp.iterdir()):
        tmp.rmdir()
    return counts


def _spill(directory: Path, table: str, row: dict, data: bytes) -> Path:
    """Stage a file payload (CSV) so write_pages can copy it byte for byte."""
    tmp = directory / ".export-tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / f"{table}-{row['sha256'][:12]}.{row['format']}"
    path.write_bytes(data)
    return path
