"""Price sheets "fetch": the curated CSV files in the repository, one file page each.

The sheets go through the same snapshot/raw/parse path as any API: every CSV under
`connectors/sheets/sheets/` becomes a Page (endpoint `price_sheet`,
`request={"sheet": <file name>}`, `path` = the file), so each sheet is its own load scope
and a broken sheet fails alone. No network, no auth, no paging. The header is checked
here (schema drift guard); the rows are validated in parse.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator
from pathlib import Path

from connectors.errors import UnexpectedResponse
from connectors.kit.page import FetchContext, FetchFailure, Page, per_scope, utc_now
from connectors.sheets import settings as s


def _check_header(path: Path) -> None:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh), [])
    except (OSError, UnicodeDecodeError) as exc:
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, f"sheet {path.name}: cannot be read ({exc})"
        ) from exc
    missing = [c for c in s.REQUIRED_COLUMNS if c not in header]
    if missing:
        raise UnexpectedResponse(
            s.PROVIDER,
            s.ENDPOINT,
            f"sheet {path.name}: missing column(s) {missing}",
            excerpt=",".join(header),
        )


def read_sheet(path: Path) -> Iterator[Page]:
    _check_header(path)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        fetched_at=utc_now(),
        request={"sheet": path.name},
        path=path,
        source_url=f"repo:connectors/sheets/sheets/{path.name}",
    )


def sheet_files(directory: Path = s.SHEETS_DIR) -> list[Path]:
    return sorted(p for p in directory.glob("*.csv") if not p.name.startswith((".", "_")))


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    directory = Path(ctx.settings.get("sheets_dir", s.SHEETS_DIR))
    names = [p.name for p in sheet_files(directory)]
    yield from per_scope(s.PROVIDER, s.ENDPOINT, names, lambda name: read_sheet(directory / name))
