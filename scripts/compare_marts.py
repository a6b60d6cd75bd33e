"""Compare the published relations of two warehouses, row for row.

    uv run python scripts/compare_marts.py BEFORE.duckdb AFTER.duckdb
    uv run python scripts/compare_marts.py --against REV      # build both from the demo

Used to show that a restructuring changed no result: every mart, fact, dimension and
alert view (and each table macro at its defaults) is compared as a multiset of rows over
the columns both sides have. Columns that name a run rather than a price (load ids,
the time a load ran) are left out, since two refreshes never share them. A column present
on one side only is reported; `--strict` counts it as a difference.

`--against REV` checks REV out in a temporary git worktree, runs the demo refresh there
and in this tree, and compares the two warehouses.

Exit 0 when every relation is identical, 1 when any differs, 2 on bad input.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import duckdb

ROOT = Path(__file__).resolve().parent.parent
PUBLISHED_PREFIXES = ("mart_", "fct_", "dim_", "alert_")
# table macros compared at their defaults, as `select * from <macro>()`
MACROS = ("cost_per_token", "breakeven_onprem", "spot_breakeven")
# columns that name a run or read the wall clock, not a price: they differ between any two
# refreshes (any column ending in load_id, too)
RUN_COLUMNS = {
    "run_id", "loaded_at", "fired_at", "since", "refreshed_at", "last_ok_at",
    "last_attempt_at", "fresh_as_of",
}
# alert values measured at run time (a source's age in hours, and the message quoting it)
RUN_COLUMNS_OF = {"alert_events": {"value", "message"}, "alert_rule_states": {"value", "message"}}
# doubles are compared at 1e-9 (the warehouse's money precision): a parallel aggregate such
# as stddev may differ in its last bits between two runs over the same rows
DECIMALS = 9


@dataclass
class Difference:
    relation: str
    rows_a: int
    rows_b: int
    only_a: int
    only_b: int
    columns_only_a: list[str]
    columns_only_b: list[str]

    @property
    def rows_differ(self) -> bool:
        return bool(self.only_a or self.only_b)

    def line(self) -> str:
        parts = [f"{self.relation}: {self.rows_a} vs {self.rows_b} rows"]
        if self.rows_differ:
            parts.append(f"{self.only_a} only before, {self.only_b} only after")
        else:
            parts.append("identical rows")
        if self.columns_only_a:
            parts.append("columns only before: " + ", ".join(self.columns_only_a))
        if self.columns_only_b:
            parts.append("columns only after: " + ", ".join(self.columns_only_b))
        return "; ".join(parts)


def _relations(con: duckdb.DuckDBPyConnection, catalog: str) -> list[str]:
    rows = con.execute(
        "select table_name from information_schema.tables "
        "where table_catalog = ? and table_schema = 'main'",
        [catalog],
    ).fetchall()
    return sorted(r[0] for r in rows if r[0].startswith(PUBLISHED_PREFIXES))


def _columns(con: duckdb.DuckDBPyConnection, source: str, relation: str) -> dict[str, str]:
    """Compared columns of `source` -> the SQL expression that reads each."""
    skip = RUN_COLUMNS | RUN_COLUMNS_OF.get(relation, set())
    columns = {}
    for name, kind, *_ in con.execute(f"describe select * from {source}").fetchall():
        if name in skip or name.endswith("load_id"):
            continue
        quoted = f'"{name}"'
        columns[name] = f"round({quoted}, {DECIMALS})" if kind in ("DOUBLE", "FLOAT") else quoted
    return columns


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    return int(con.execute(f"select count(*) from ({sql})").fetchone()[0])  # type: ignore[index]


def compare(before: Path, after: Path) -> list[Difference]:
    """Every published relation and macro of `before` against `after`."""
    con = duckdb.connect()
    con.execute(f"attach '{before}' as a (read_only)")
    con.execute(f"attach '{after}' as b (read_only)")
    names = sorted(set(_relations(con, "a")) | set(_relations(con, "b")))
    differences = [_compare_one(con, n, f"a.main.{n}", f"b.main.{n}") for n in names]
    differences += [_compare_macro(before, after, macro) for macro in MACROS]
    return differences


def _compare_one(con: duckdb.DuckDBPyConnection, name: str, src_a: str, src_b: str) -> Difference:
    relation = name.removesuffix("()")
    try:
        cols_a = _columns(con, src_a, relation)
    except duckdb.Error:
        cols_a = {}
    try:
        cols_b = _columns(con, src_b, relation)
    except duckdb.Error:
        cols_b = {}
    if not cols_a or not cols_b:
        rows_a = _count(con, f"select * from {src_a}") if cols_a else 0
        rows_b = _count(con, f"select * from {src_b}") if cols_b else 0
        return Difference(name, rows_a, rows_b, rows_a, rows_b, list(cols_a), list(cols_b))
    select = ", ".join(expr for c, expr in cols_a.items() if c in cols_b)
    sel_a, sel_b = f"select {select} from {src_a}", f"select {select} from {src_b}"
    return Difference(
        name,
        _count(con, sel_a),
        _count(con, sel_b),
        _count(con, f"{sel_a} except all {sel_b}"),
        _count(con, f"{sel_b} except all {sel_a}"),
        [c for c in cols_a if c not in set(cols_b)],
        [c for c in cols_b if c not in set(cols_a)],
    )


def _compare_macro(before: Path, after: Path, macro: str) -> Difference:
    # a table macro resolves its relations in the default catalog: run each side in its
    # own file, copy the result into a scratch database, then compare there
    scratch = duckdb.connect()
    for alias, path in (("a", before), ("b", after)):
        source = duckdb.connect(str(path), read_only=True)
        try:
            table = source.sql(f"select * from {macro}()").to_arrow_table()
        except duckdb.Error:
            table = None
        finally:
            source.close()
        if table is not None:
            scratch.register(f"{alias}_arrow", table)
            scratch.execute(f"create table {alias}_result as select * from {alias}_arrow")
        else:
            scratch.execute(f"create table {alias}_result as select 1 as missing where false")
    return _compare_one(scratch, f"{macro}()", "a_result", "b_result")


def _demo_warehouse(tree: Path, target: Path) -> None:
    subprocess.run(
        ["uv", "run", "--frozen", "gpu-pricing", "refresh", "--snapshot", "demo",
         "--warehouse", str(target)],
        cwd=tree, check=True, stdout=subprocess.DEVNULL,
    )


def build_against(rev: str, workdir: Path) -> tuple[Path, Path]:
    """Demo warehouses of `rev` (in a temporary worktree) and of this tree."""
    tree = workdir / "base"
    subprocess.run(["git", "worktree", "add", "--detach", str(tree), rev], cwd=ROOT, check=True,
                   stdout=subprocess.DEVNULL)
    try:
        _demo_warehouse(tree, workdir / "before.duckdb")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    _demo_warehouse(ROOT, workdir / "after.duckdb")
    return workdir / "before.duckdb", workdir / "after.duckdb"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouses", nargs="*", type=Path, help="BEFORE.duckdb AFTER.duckdb")
    parser.add_argument("--against", metavar="REV", help="build the demo at REV and here")
    parser.add_argument("--strict", action="store_true", help="a column on one side only differs")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        if args.against:
            before, after = build_against(args.against, Path(tmp))
        elif len(args.warehouses) == 2:
            before, after = args.warehouses
        else:
            parser.print_usage(sys.stderr)
            print("compare_marts: give two warehouse files or --against REV", file=sys.stderr)
            return 2
        for path in (before, after):
            if not path.is_file():
                print(f"compare_marts: no warehouse file at {path}", file=sys.stderr)
                return 2
        differences = compare(before, after)
    failed = [
        d for d in differences
        if d.rows_differ or (args.strict and (d.columns_only_a or d.columns_only_b))
    ]
    for d in differences:
        print(("DIFFERS " if d in failed else "same    ") + d.line())
    print(f"{len(differences) - len(failed)} of {len(differences)} relations identical")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
