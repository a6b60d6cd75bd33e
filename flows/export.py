"""`snapshot export`: raw payloads in the warehouse back out in the snapshot format."""

from __future__ import annotations

import json
from pathlib import Path

from connectors import _snapshot
from connectors._page import Page
from warehouse import db


def export_snapshot(con, directory: Path, load_id: str | None = None) -> dict[str, int]:
    tables = db.query(
        con,
        "SELECT table_name FROM duckdb_tables() WHERE table_name LIKE 'raw\\_%\\_\\_%' ESCAPE '\\'",
    )["table_name"].to_list()
    counts: dict[str, int] = {}
    for table in sorted(tables):
        provider, endpoint = table.removeprefix("raw_").split("__", 1)
        rows = db.query(
            con,
            f"""SELECT DISTINCT r._fetched_at, r._request::VARCHAR AS request, r._source_url,
                       r._payload, r._sha256
                FROM {table} r
                WHERE $load_id IS NULL OR r._sha256 IN (
                    SELECT sha256 FROM _load_pages WHERE load_id = $load_id)
                ORDER BY r._fetched_at, r._sha256""",
            {"load_id": load_id},
        )
        pages = []
        for row in rows.iter_rows(named=True):
            request = json.loads(row["request"])
            try:
                body, path = json.loads(row["_payload"]), None
            except (TypeError, json.JSONDecodeError):
                body, path = None, _spill(directory, table, row)
            pages.append(
                Page(
                    provider,
                    endpoint,
                    row["_fetched_at"],
                    request,
                    body=body,
                    path=path,
                    source_url=row["_source_url"],
                )
            )
        if pages:
            counts[f"{provider}/{endpoint}"] = _snapshot.write_pages(directory, pages)
            for p in pages:
                if p.path is not None:
                    p.path.unlink()
    return counts


def _spill(directory: Path, table: str, row: dict) -> Path:
    """Stage a file payload (CSV) so write_pages can copy it byte for byte."""
    tmp = directory / ".export-tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    path = tmp / f"{table}-{row['_sha256'][:12]}.csv"
    path.write_text(row["_payload"], encoding="utf-8")
    return path
