"""Connect to the warehouse, and publish a refresh atomically.

Readers (analysts, the CLI) open the published file read-only. A refresh never writes to
the published file: it copies it to `<file>.next`, does all its work there, checkpoints,
and renames the copy over the published file (`os.replace`, atomic on POSIX). Readers
with an open connection keep reading the old file; new connections see the new one. A
refresh killed midway leaves only a stale `.next`, which the next refresh discards.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import re
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb

from common.errors import StorageFull, WarehouseError, no_space
from common.rows import Rows
from common.schemas import BOOKKEEPING_DDL, RENAMED_COLUMNS, RENAMED_TABLES, staging_migrations

if TYPE_CHECKING:
    import polars as pl
    import pyarrow as pa

ENV_VAR = "GPU_PRICING_WAREHOUSE"
DEFAULT_RELATIVE = Path("warehouse") / "gpu_pricing.duckdb"
# DuckDB 2.0 writes a file format that DuckDB 1.x tools cannot open unless told to stay
# compatible; analysts' `duckdb -readonly` CLI may well be a 1.x build. v1.3.0: opened by
# DuckDB 1.3 and later (the shell installed with the project is a 1.5), and its string
# compression writes the history, the staged offers and the marts of 1M Azure items for
# ~2/3 of the CPU of v1.1.0's (3.4 -> 2.2 cpu s, 73 -> 65 blocks; v1.4.0 and DuckDB 2.0's
# own format measured the same). It applies to a new file: DuckDB keeps writing an
# existing file in the format it was made with (until a compaction copies it,
# `_compact_if_sparse`), so a warehouse made for older tools stays readable by them.
STORAGE_COMPATIBILITY = os.environ.get("GPU_PRICING_DUCKDB_STORAGE", "v1.3.0")
# a published file more than this fraction free blocks (after raw pages moved out, say)
# is rewritten compactly: DuckDB reuses freed blocks but never shrinks its file
COMPACT_FREE_FRACTION = 0.5
COMPACT_MIN_BYTES = 64 << 20
# what a refresh's DuckDB may hold before it spills (its process peaks ~200 MB above it:
# Python, Polars, Arrow). A 1M-item Azure build peaked at 1.2 GiB under 1 GB and at
# 790-870 MiB under 512-640 MB, in the same CPU time (the held views are on disk,
# warehouse.materialise); a 1M-point spot refresh stays under 550 MiB either way.
MEMORY_LIMIT = os.environ.get("GPU_PRICING_DUCKDB_MEMORY", "640MB")
CHECKPOINT_THRESHOLD = os.environ.get("GPU_PRICING_DUCKDB_CHECKPOINT", "8GB")
# the scratch database a build keeps its held views' rows in, beside the file it builds
# (warehouse.materialise.computed_once): `<file>.next.held`
HELD_SUFFIX = ".held"

# Every connection to a warehouse: DuckDB's common-subplan optimizer computes a view a
# query reads twice once, whole, for both readers, so two reads of a year of spot points
# that each skip to their own days (the spot statistics' recent points and the series'
# last points before them; a uniqueness check of the new points against the stored ones)
# became one read of every point: 2.3 s and 6 s at 8.8M points, 0.1 s each without it.
# (set on the connection, not as its configuration: DuckDB refuses a second connection to
# a file open in the process under another configuration)
OFF_OPTIMIZERS = "SET disabled_optimizers = 'common_subplan'"


def default_path() -> Path:
    """The command line's default: $GPU_PRICING_WAREHOUSE, else warehouse/gpu_pricing.duckdb
    under the working directory (run it from the checkout)."""
    return Path(os.environ.get(ENV_VAR) or Path.cwd() / DEFAULT_RELATIVE)


# the checkout this package runs from (an editable install, as `uv run` makes one)
PROJECT_ROOT = Path(__file__).resolve().parents[1]


def project_path() -> Path:
    """The default warehouse to read (the Python API, and the commands that only read):
    $GPU_PRICING_WAREHOUSE, else warehouse/gpu_pricing.duckdb under the working directory
    when there is one (where a refresh run there writes it), else the one in the checkout
    this package runs from (where `uv run gpu-pricing refresh` in the checkout writes it),
    so a notebook in another folder finds it; a package installed outside a checkout uses
    $XDG_DATA_HOME/gpu-pricing/gpu_pricing.duckdb (~/.local/share/gpu-pricing/...)."""
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR])
    if (Path.cwd() / DEFAULT_RELATIVE).exists():
        return Path.cwd() / DEFAULT_RELATIVE
    if (PROJECT_ROOT / "pyproject.toml").is_file():
        return PROJECT_ROOT / DEFAULT_RELATIVE
    data = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return data / "gpu-pricing" / DEFAULT_RELATIVE.name


def explain(path: Path, exc: duckdb.Error) -> WarehouseError:
    """One line that says what is wrong with the file and what to do, from DuckDB's error."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if "Conflicting lock" in text:
        holder = re.search(r"held in (.+?)(?: \(PID (\d+)\))?(?: by user| See also|\.? *$)", text)
        who = ""
        if holder:
            who = f" ({holder.group(1)}" + (f", PID {holder.group(2)}" if holder.group(2) else "") + ")"
        return WarehouseError(
            f"warehouse {path} is open read-write in another process{who}: close that "
            "connection, or open the file read-only (`duckdb -readonly`, "
            "`duckdb.connect(path, read_only=True)`); nothing was changed"
        )
    # a read past a truncated end may surface as the first line, or inside a fatal error
    # whose rollback failed on the same read ("Original Error: IO Error: ...")
    unreadable = [
        line.removeprefix("Original Error: ")
        for line in str(exc).splitlines()
        if "not a valid DuckDB database" in line or "Could not read enough bytes" in line
    ]
    if unreadable:
        return WarehouseError(
            f"warehouse {path} is not a readable DuckDB file (truncated or corrupt: "
            f"{unreadable[0]}); "
            "it was left as it is: restore it from a backup, or move it aside and refresh "
            "to start a new one"
        )
    return WarehouseError(f"warehouse {path}: {text}")


def _not_a_directory(path: Path) -> None:
    if Path(path).is_dir():
        raise WarehouseError(
            f"warehouse {path} is a directory, not a DuckDB file: give the file's path, "
            f"e.g. {Path(path) / DEFAULT_RELATIVE.name}"
        )


def connect_readonly(path: Path) -> duckdb.DuckDBPyConnection:
    if not path.exists():
        raise WarehouseError(f"warehouse {path} does not exist: run `gpu-pricing refresh` first")
    _not_a_directory(path)
    try:
        con = duckdb.connect(str(path), read_only=True)
        con.execute(OFF_OPTIMIZERS)
        # a read of over ~2 s (the planner's offers at a million) would draw DuckDB's
        # progress bar on stdout, ahead of a command's `--json` document
        con.execute("SET enable_progress_bar = false")
        return con
    except duckdb.Error as exc:
        raise explain(path, exc) from exc


def check_openable(path: Path) -> None:
    """Before a refresh: the published file (if any) opens and reads, so a file held
    read-write elsewhere or a corrupt file is reported as such, before any work; and the
    refresh can write beside it (its lock, its next version, the raw store)."""
    _not_a_directory(path)
    folder = next(
        p for p in [Path(path).absolute().parent, *Path(path).absolute().parents] if p.exists()
    )
    if not os.access(folder, os.W_OK | os.X_OK):
        raise WarehouseError(
            f"warehouse {path}: cannot write in {folder} (permission denied): a refresh "
            "writes the file, its lock and its next version there; choose a writable "
            "--warehouse"
        )
    if not Path(path).exists():
        return
    con = connect_readonly(Path(path))
    try:
        run(con, "SELECT count(*) FROM duckdb_tables()")
    except duckdb.Error as exc:
        raise explain(path, exc) from exc
    finally:
        con.close()


def run(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> list[tuple]:
    """Execute a statement and fetch everything: DuckDB 2.0 keeps the connection busy
    until a result is fully consumed."""
    result = con.execute(sql, params) if params is not None else con.execute(sql)
    return result.fetchall()


def relation_exists(
    con: duckdb.DuckDBPyConnection, name: str, *, database: str | None = None
) -> bool:
    """Whether a table or view of this name is in `database` (any attached one when None):
    the one statement of "created yet?" for code that meets warehouses of earlier versions."""
    sql = """SELECT 1 FROM (SELECT database_name, schema_name, table_name AS name
                             FROM duckdb_tables()
                             UNION ALL SELECT database_name, schema_name, view_name
                             FROM duckdb_views())
             WHERE name = $n AND ($d IS NULL OR database_name = $d AND schema_name = 'main')"""
    return bool(run(con, sql, {"n": name, "d": database}))


def text_literal(text: str | Path) -> str:
    """`text` as a SQL string literal, for the statements that take no parameter where a
    file's path goes (ATTACH): a path may hold a quote."""
    return "'" + str(text).replace("'", "''") + "'"


def query(
    con: duckdb.DuckDBPyConnection, sql: str, params: Any = None, *, batch_rows: int = 64 * 1024
) -> pl.DataFrame:
    """Run a query and return a Polars frame (DuckDB 2.0: via a relation and Arrow).
    Converted batch by batch (`batch_rows`), so a result of large payloads is never held
    twice in memory."""
    import polars as pl

    reader = con.sql(sql, params=params).to_arrow_reader(batch_size=batch_rows)
    frames = [pl.from_arrow(batch) for batch in reader]
    if not frames:
        return pl.from_arrow(reader.schema.empty_table())  # type: ignore[return-value]
    return pl.concat(frames, rechunk=False)  # type: ignore[arg-type]


def rows(con: duckdb.DuckDBPyConnection, sql: str, params: Any = None) -> Rows:
    """Run a query and fetch its rows as Python values (`query`'s frame, for a result small
    enough to print)."""
    relation = con.sql(sql, params=params)
    return Rows(
        tuple(relation.columns), tuple(str(t) for t in relation.types), relation.fetchall()
    )


# -- whole relations, by name (the publish step, the alert inputs): the name is checked to
# be a plain identifier and quoted, the only text put into these statements

_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _quoted(name: str) -> str:
    if not _IDENTIFIER.match(name):
        raise WarehouseError(f"not a relation or column name: {name!r}")
    return f'"{name}"'


def database_path(con: duckdb.DuckDBPyConnection) -> Path:
    """The file the connection's current database is stored in."""
    (path,) = run(
        con, "SELECT path FROM duckdb_databases() WHERE database_name = current_database()"
    )[0]
    return Path(path)


def relation_frame(con: duckdb.DuckDBPyConnection, relation: str) -> pl.DataFrame:
    """Every row of a relation, as a Polars frame."""
    return query(con, f"SELECT * FROM {_quoted(relation)}")


def relation_schema(con: duckdb.DuckDBPyConnection, relation: str) -> pa.Schema:
    """The relation's columns as an Arrow schema (no rows read)."""
    return con.sql(f"SELECT * FROM {_quoted(relation)} LIMIT 0").to_arrow_table().schema


def relation_rows(con: duckdb.DuckDBPyConnection, relation: str) -> int:
    return run(con, f"SELECT count(*) FROM {_quoted(relation)}")[0][0]


def relation_arrow(
    con: duckdb.DuckDBPyConnection,
    relation: str,
    order: Sequence[str],
    *,
    without: pa.Table | None = None,
    key: Sequence[str] = (),
) -> pa.Table:
    """The relation's rows ordered by `order` (nulls last); with `without` (rows of the
    `key` columns), only the rows whose key is not among them, matched null-safely, so the
    difference is taken in DuckDB and only it is read into memory."""
    by = ", ".join(f"r.{_quoted(c)} NULLS LAST" for c in order)
    source = f"{_quoted(relation)} r"
    if without is None or without.num_rows == 0:
        return con.sql(f"SELECT r.* FROM {source} ORDER BY {by}").to_arrow_table()
    match = " AND ".join(f"r.{_quoted(c)} IS NOT DISTINCT FROM p.{_quoted(c)}" for c in key)
    con.register("_without", without)
    try:
        return con.sql(
            f"SELECT r.* FROM {source} ANTI JOIN _without p ON {match} ORDER BY {by}"
        ).to_arrow_table()
    finally:
        con.unregister("_without")


def in_transaction(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether a transaction is open on `con`. Outside one, each statement runs in a
    transaction of its own, with a new id; inside one, both ask the same. (Trying BEGIN
    cannot tell: DuckDB answers a BEGIN inside an open transaction by aborting it.)"""
    first, second = (run(con, "SELECT txid_current()")[0][0] for _ in range(2))
    return first == second


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[None]:
    """One transaction around the block: its own, committed at the end and rolled back on
    an error, or the caller's when one is already open (then the caller decides)."""
    if in_transaction(con):  # the caller's transaction holds the block
        yield
        return
    con.begin()
    try:
        yield
    except BaseException:
        con.rollback()
        raise
    con.commit()


def arrow_of(df: pl.DataFrame) -> pa.Table:
    """`df` as Arrow for DuckDB to read: its strings as Polars holds them (views), not
    first copied into one buffer per column, as the oldest Arrow layout would (~0.1 s CPU
    of inserting a million spot points, measured)."""
    import polars as pl

    return df.to_arrow(compat_level=pl.CompatLevel.newest())


def insert_frame(con: duckdb.DuckDBPyConnection, table: str, df: pl.DataFrame) -> int:
    """Insert a Polars frame into a declared table, by column name, with DuckDB's FSST
    string compression left out: it chose it for no column of 1M Azure offers (14.2 MB
    either way) nor of a million spot points (6.9 MB either way), and trying it cost ~0.35
    s CPU of the offers' ~2 s insert and 0.13 s of the points' ~0.9 s (measured,
    alternated). Only this insert: the connection's setting is restored after it."""
    if df.is_empty():
        return 0
    run(con, "SET disabled_compression_methods = 'fsst'")
    con.register("_frame", arrow_of(df))
    try:
        run(con, f"INSERT INTO {table} BY NAME SELECT * FROM _frame")
    finally:
        con.unregister("_frame")
        run(con, "RESET disabled_compression_methods")
    return df.height


def ensure_bookkeeping(con: duckdb.DuckDBPyConnection) -> None:
    tables = {
        row[0]
        for row in run(
            con, "SELECT table_name FROM duckdb_tables() WHERE schema_name = 'main'"
        )
    }
    for old, new in RENAMED_TABLES.items():
        if old in tables and new not in tables:
            run(con, f"ALTER TABLE {old} RENAME TO {new}")
    for ddl in BOOKKEEPING_DDL:
        run(con, ddl)
    for ddl in staging_migrations("snp_offers_history"):
        run(con, ddl)
    for table, old, new in RENAMED_COLUMNS:
        columns = {
            name
            for (name,) in run(
                con,
                """SELECT column_name FROM duckdb_columns()
                   WHERE database_name = current_database() AND schema_name = current_schema()
                     AND table_name = $table""",
                {"table": table},
            )
        }
        if old in columns and new not in columns:
            run(con, f"ALTER TABLE {table} RENAME COLUMN {old} TO {new}")


@contextmanager
def _exclusive_lock(path: Path) -> Iterator[None]:
    lock_path = path.with_name(path.name + ".lock")
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with lock_path.open("w") as fh:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise WarehouseError(
                f"another refresh holds {lock_path}; not starting a second one"
            ) from None
        try:
            yield
        finally:
            fcntl.flock(fh, fcntl.LOCK_UN)


def _remove(*paths: Path) -> None:
    for p in paths:
        p.unlink(missing_ok=True)


def drop_to_rewrite(con: duckdb.DuckDBPyConnection, tables: Sequence[str]) -> list[str]:
    """Drop `tables`, which the build is about to write again, and checkpoint, so the
    blocks they held are free for the build's own writes. DuckDB frees a dropped or
    replaced table's blocks at a checkpoint, and a build checkpoints once, at its end
    (`building`): without this each table a build replaces is in the file twice when it
    ends, its old blocks left free for the next night. The checkpoint also writes what the
    build staged so far (which the end would write anyway) and frees what that replaced
    (the staged rows of the night before) for the tables written after it.
    Only for `building`'s copy, where a failed build is discarded whole: the published
    file keeps the tables. Inside an open transaction nothing is done (a checkpoint cannot
    run there); the caller's `CREATE OR REPLACE` replaces them as before. Returns the tables
    dropped."""
    if in_transaction(con):
        return []
    present = {
        name
        for (name,) in run(
            con,
            """SELECT table_name FROM duckdb_tables()
               WHERE database_name = current_database() AND schema_name = 'main'""",
        )
    }
    dropped = [name for name in tables if name in present]
    for name in dropped:
        run(con, f"DROP TABLE {_quoted(name)}")
    # also when none was there (a build that made them views again dropped them itself)
    run(con, "CHECKPOINT")
    return dropped


def _compact_if_sparse(con: duckdb.DuckDBPyConnection, target: Path) -> bool:
    """Copy the database into a fresh file at `target` when most of its blocks are free;
    True if it did (the caller renames `target` over the working copy)."""
    (total, free, block) = run(
        con, "SELECT total_blocks, free_blocks, block_size FROM pragma_database_size()"
    )[0]
    if not total or free / total <= COMPACT_FREE_FRACTION or free * block < COMPACT_MIN_BYTES:
        return False
    (name,) = run(con, "SELECT current_database()")[0]
    run(
        con,
        f"ATTACH {text_literal(target)} AS _compact"
        f" (STORAGE_VERSION '{STORAGE_COMPATIBILITY}')",
    )
    try:
        run(con, f'COPY FROM DATABASE "{name}" TO _compact')
    finally:
        run(con, "DETACH _compact")
    return True


def _interrupted(exc: BaseException) -> bool:
    return isinstance(exc, duckdb.InterruptException) or (
        isinstance(exc, RuntimeError) and str(exc).startswith("Query interrupted")
    )


def _full(path: Path, exc: BaseException) -> StorageFull:
    where = getattr(exc, "filename", None) or path.parent
    return StorageFull(
        f"no space left on the device holding {where}: nothing was published (the "
        f"warehouse {path} is as it was); free space and run the refresh again"
    )


@contextmanager
def building(path: Path) -> Iterator[duckdb.DuckDBPyConnection]:
    """A read-write connection to the next version of the warehouse; published on clean
    exit, discarded on any exception."""
    path = Path(path)
    nxt = path.with_name(path.name + ".next")
    nxt_wal = nxt.with_name(nxt.name + ".wal")
    compact = path.with_name(path.name + ".compact")
    held = nxt.with_name(nxt.name + HELD_SUFFIX)
    leftovers = (compact.with_name(compact.name + ".wal"), held, held.with_name(held.name + ".wal"))
    with _exclusive_lock(path):
        _remove(nxt, nxt_wal, compact, *leftovers)
        check_openable(path)  # never publish over a file held read-write elsewhere
        try:
            if path.exists():
                shutil.copyfile(path, nxt)  # a failed copy leaves no partial .next
            con = duckdb.connect(
                str(nxt), config={"storage_compatibility_version": STORAGE_COMPATIBILITY}
            )
        except BaseException as exc:
            _remove(nxt, nxt_wal)
            if no_space(exc):
                raise _full(path, exc) from exc
            if isinstance(exc, duckdb.Error):
                raise explain(path, exc) from exc
            raise
        try:
            # one checkpoint at the end instead of one per 16 MB of WAL: a refresh lands
            # hundreds of MB of raw payload, and the copy is discarded on failure anyway
            run(con, f"SET checkpoint_threshold = '{CHECKPOINT_THRESHOLD}'")
            run(con, "SET preserve_insertion_order = false")
            # DuckDB's default cache is 80% of RAM; a refresh needs far less, and spills
            run(con, f"SET memory_limit = '{MEMORY_LIMIT}'")
            # a long statement would draw a progress bar on stdout (`--json` output, logs)
            run(con, "SET enable_progress_bar = false")
            run(con, OFF_OPTIMIZERS)
            ensure_bookkeeping(con)
            yield con
            run(con, "CHECKPOINT")
            compacted = _compact_if_sparse(con, compact)
            con.close()
            if compacted:
                os.replace(compact, nxt)
        except BaseException as exc:
            with contextlib.suppress(Exception):  # a connection DuckDB already invalidated
                con.close()
            _remove(nxt, nxt_wal, compact, *leftovers)
            if no_space(exc):
                raise _full(path, exc) from exc
            if _interrupted(exc):  # DuckDB turns Ctrl-C inside a query into its own error
                raise KeyboardInterrupt from exc
            # e.g. a block past a truncated end; DuckDB raises it as fatal when the
            # rollback that follows reads the same block
            if isinstance(exc, duckdb.IOException) or (
                isinstance(exc, duckdb.FatalException) and "IO Error" in str(exc)
            ):
                raise explain(path, exc) from exc
            raise
        with nxt.open("rb") as fh:
            os.fsync(fh.fileno())
        os.replace(nxt, path)
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
