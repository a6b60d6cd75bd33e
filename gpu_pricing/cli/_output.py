"""CLI output helpers: one JSON document on stdout with --json, else aligned tables.
Everything they print is redacted first (common.redact)."""

from __future__ import annotations

import json
import re
import shutil
import sys
import textwrap
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from common.redact import redact, redact_doc
from common.rows import Rows

if TYPE_CHECKING:
    import polars as pl


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


# the narrowest a text column is cut to when a table is wider than the terminal
MIN_TEXT_WIDTH = 6


def terminal_width() -> int:
    """The terminal's width ($COLUMNS, else the terminal, else 120)."""
    return shutil.get_terminal_size((120, 24)).columns


def _fit(
    widths: list[int], shrinkable: list[bool], limit: int, kept: list[bool] | None = None
) -> list[int]:
    """Column widths that fit `limit` characters (with two spaces between columns): the
    widest text column gives up a character at a time; numbers are never cut, and `kept`
    columns only once no other text column can give more."""
    widths = list(widths)
    kept = kept or [False] * len(widths)
    while sum(widths) + 2 * (len(widths) - 1) > limit:
        candidates = [i for i, w in enumerate(widths) if shrinkable[i] and w > MIN_TEXT_WIDTH]
        if not candidates:
            break
        widest = max(candidates, key=lambda i: (not kept[i], widths[i]))
        widths[widest] -= 1
    return widths


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def table(
    df: pl.DataFrame | Rows,
    float_digits: int = 4,
    width: int | None = None,
    keep: tuple[str, ...] = (),
) -> str:
    """An aligned text table that fits `width` (default: the terminal, 120 without one):
    text columns too wide are cut with an ellipsis (the --json output has every value),
    the columns named in `keep` last. `df`: a Polars frame, or a query's rows as Python
    values (`warehouse.db.Rows`, read without loading Polars)."""
    if df.is_empty():
        return "(no rows)"
    columns, floats, texts, rows = _shape(df)
    # a float column of whole numbers (GPU memory 94, 8 GPUs) prints as such; a column with
    # any fraction (prices) gives every row its digits, so 2.0 reads 2.0000 beside 1.6000
    digits = [
        0 if floats[i] and all(r[i] is None or float(r[i]).is_integer() for r in rows)
        else float_digits
        for i in range(len(columns))
    ]
    cells = [[_cell(v, d) for v, d in zip(row, digits, strict=True)] for row in rows]
    natural = [max(len(c), *(len(r[i]) for r in cells)) for i, c in enumerate(columns)]
    # text is cut where needed, never a number (nor a column of formatted numbers)
    number = re.compile(r"^[-+]?[\d,.]*%?$")
    text = [
        texts[i] and not all(number.match(r[i]) for r in cells) for i in range(len(columns))
    ]
    widths = _fit(natural, text, width or terminal_width(), [c in keep for c in columns])

    def line(values: list[str]) -> str:
        return "  ".join(
            _cut(v, w).ljust(w) for v, w in zip(values, widths, strict=True)
        ).rstrip()

    return redact(
        "\n".join([line(list(columns)), line(["-" * w for w in widths]), *map(line, cells)])
    )


# DuckDB's floating-point types (a Polars Float32 or Float64 column)
_DUCK_FLOATS = frozenset({"DOUBLE", "FLOAT"})


def _shape(df: pl.DataFrame | Rows) -> tuple[list[str], list[bool], list[bool], list[tuple]]:
    """A table's columns, which hold floats and which text (a DuckDB VARCHAR, a Polars
    String), and its rows as tuples of Python values."""
    if isinstance(df, Rows):
        floats = [t in _DUCK_FLOATS for t in df.types]
        return list(df.columns), floats, [t == "VARCHAR" for t in df.types], df.rows
    import polars as pl

    floats = [dtype.is_float() for dtype in df.dtypes]
    return df.columns, floats, [dtype == pl.String for dtype in df.dtypes], list(df.iter_rows())


def print_wrapped(text: str, width: int | None = None) -> None:
    """A paragraph of prose, wrapped to the terminal."""
    print(redact(textwrap.fill(text, width=width or terminal_width(), break_on_hyphens=False)))


def wrapped_lines(pairs: list[tuple[str, str]], width: int | None = None) -> str:
    """`key  value` lines, keys aligned, long values wrapped under their value column."""
    key_width = max(len(k) for k, _ in pairs)
    indent = " " * (2 + key_width + 2)
    out = []
    for key, value in pairs:
        out.append(
            textwrap.fill(
                value,
                width=width or terminal_width(),
                initial_indent=f"  {key.ljust(key_width)}  ",
                subsequent_indent=indent,
                break_on_hyphens=False,
            )
        )
    return redact("\n".join(out))


def _cell(value: Any, float_digits: int) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return f"{value:.{float_digits}f}"
    if isinstance(value, datetime):
        return value.strftime("%Y-%m-%d %H:%M")
    return str(value)


def err(message: str) -> None:
    sys.stderr.write(f"gpu-pricing: {redact(message)}\n")

def left_out_line(counts: dict[str, int]) -> str:
    """One line saying which current prices a ranking left out, by provenance."""
    parts = ", ".join(f"{n:,} {provenance}" for provenance, n in sorted(counts.items()))
    return (
        f"Not ranked: {parts} price(s) (illustrative: invented for the demo snapshot or "
        "not bookable; docs/prices.md); `gpu-pricing rates --include-illustrative` lists "
        "them, marked."
    )
