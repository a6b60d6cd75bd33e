"""The app layer's queries, one `.sql` file each, read by name.

The command line, the Python API, the report and the alerts read the warehouse through
these files only; each reads marts, intermediate views or table macros (`sql/`) and never
re-derives a rule those define. Parameters are DuckDB named parameters (`$gpu`), bound at
execution: `con.execute(queries.sql("rates"), {"gpu": "H100"})`.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

QUERIES_DIR = Path(__file__).resolve().parent


@cache
def sql(name: str) -> str:
    """The text of `gpu_pricing/queries/<name>.sql`."""
    path = QUERIES_DIR / f"{name}.sql"
    if not path.is_file():
        raise KeyError(f"no query named {name!r} in {QUERIES_DIR}")
    return path.read_text(encoding="utf-8")
