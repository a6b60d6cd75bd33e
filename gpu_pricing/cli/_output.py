"""CLI output helpers: one JSON document on stdout with --json, else aligned tables.
Everything they print is redacted first (connectors.kit.redact)."""

from __future__ import annotations

import json
import sys
from datetime import date, datetime
from typing import Any

import polars as pl

from connectors.kit.redact import redact, redact_doc


def _default(value: Any) -> Any:
    if isinstance(value, datetime):
        return value.isoformat() + ("Z" if value.tzinfo is None else "")
    if isinstance(value, date):
        return value.isoformat()
    return str(value)


def emit_json(doc: Any) -> None:
    # every string is redacted inside the document, so the JSON stays well formed
    doc = redact_doc(doc)
    text = json.dumps(doc, default=lambda v: redact(_default(v)), indent=2)
    sys.stdout.write(text + "\n")


def table(df: pl.DataFrame, float_digits: int = 4) -> str:
    if df.is_empty():
        return "(no rows)"
    cells = [[_cell(v, float_digits) for v in row] for row in df.iter_rows()]
    widths = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(df.columns)]
    line = lambda vals: "  ".join(v.ljust(w) for v, w in zip(vals, widths, strict=True)).rstrip()  # noqa: E731
    return redact(
        "\n".join([line(df.columns), line(["-" * w for w in widths]), *map(line, cells)])
    )


def _cell(value: Any, float_digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        # whole numbers (GPU memory 94, 8 GPUs) print as such; prices keep their digits
        return str(int(value)) if value.is_integer() else f"{value:.{float_digits}f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def err(message: str) -> None:
    sys.stderr.write(f"gpu-pricing: {redact(message)}\n")
