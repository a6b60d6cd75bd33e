"""`snapshot export`: the pages the ledger lists, their bytes from the raw store, back out
in the snapshot format (JSON bodies and files byte for byte as they were received)."""

from __future__ import annotations

import json
from pathlib import Path

from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import Page
from warehouse import db, raw
from warehouse.rawstore import RawStore


def export_snapshot(
    con, directory: Path, load_id: str | None = None, store: RawStore | None = None
) -> dict[str, int]:
    store = store or RawStore.beside(db.database_path(con))
    legacy = raw.legacy_tables(con)
    frames = (
        [raw.legacy_stored_pages(con, t, load_id) for t in legacy]
        if legacy
        else [raw.stored_pages(con, load_id)]
    )
    counts: dict[str, int] = {}
    for frame in frames:
        for (provider, endpoint), part in frame.group_by(
            "provider", "endpoint", maintain_order=True
        ):
            pages = []
            for row in part.iter_rows(named=True):  # one row per page, not per record
                data = (
                    row["payload"].encode()
                    if "payload" in row
                    else store.get(row["sha256"], row["request"])
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
                        provenance=json.loads(row["provenance"]) if row.get("provenance") else None,
                    )
                )
            if pages:
                counts[f"{provider}/{endpoint}"] = kit_snapshot.write_pages(directory, pages)
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
