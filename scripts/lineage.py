"""The SQL project's lineage, or a part of it, in build order.

    uv run python scripts/lineage.py                          # every view and macro
    uv run python scripts/lineage.py +mart_cost_per_token     # it and all it reads
    uv run python scripts/lineage.py int_offers_usable+       # it and all that reads it
    uv run python scripts/lineage.py 1+mart_spot_breakeven    # it and what it reads directly

One line per relation: its name, its kind, and the relations it reads. The graph is
DuckDB's parse of each statement (warehouse/lineage.py); selectors are dbt's (`+name`,
`name+`, `n+name`, `name+n`, several separated by spaces). Exit 2 on an unknown name.
"""

from __future__ import annotations

import sys

from common.errors import WarehouseError
from warehouse import lineage, sql_runner


def lines(selector: str = "") -> list[str]:
    graph = sql_runner.lineage_graph()
    chosen = lineage.select(graph, selector) if selector.strip() else set(graph)
    declared = sql_runner.relations()
    built = sql_runner.build_order()
    order = [n for n in built if n in chosen] + sorted(chosen - set(built))
    out = []
    for name in order:
        kind = declared[name].kind if name in declared else "undeclared"
        reads = ", ".join(sorted(graph[name])) or "-"
        out.append(f"{name}  ({kind})  <- {reads}")
    return out


def main(argv: list[str] | None = None) -> int:
    try:
        print("\n".join(lines(" ".join(sys.argv[1:] if argv is None else argv))))
    except WarehouseError as exc:
        print(f"lineage: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
