"""A small query result as Python values, with its columns' names and DuckDB types: what a
command prints without loading Polars (warehouse.db.rows, warehouse.queries.read_rows)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Rows:
    """Rows as DuckDB's `fetchall` gives them (the values a Polars frame of the same result
    holds too), with the columns' names and DuckDB types; the few frame operations the
    command line's tables use."""

    columns: tuple[str, ...]
    types: tuple[str, ...]
    rows: list[tuple]

    @property
    def height(self) -> int:
        return len(self.rows)

    def is_empty(self) -> bool:
        return not self.rows

    def column(self, name: str) -> list[Any]:
        at = self.columns.index(name)
        return [row[at] for row in self.rows]

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row, strict=True)) for row in self.rows]

    def select(self, names: Sequence[str]) -> Rows:
        at = [self.columns.index(n) for n in names]
        return Rows(
            tuple(names),
            tuple(self.types[i] for i in at),
            [tuple(row[i] for i in at) for row in self.rows],
        )

    def rename(self, names: dict[str, str]) -> Rows:
        return Rows(tuple(names.get(c, c) for c in self.columns), self.types, self.rows)
