"""The publish's two sides (warehouse.publish runs them): the warehouse pinned read-only for
the run, the Iceberg tables written one commit each, and the files put at the destination."""

from __future__ import annotations

import glob
import hashlib
import logging
import os
import re
import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb
import pyarrow as pa

from common.errors import InvalidInput
from warehouse import db, queries
from warehouse.publish_spec import (
    TABLE_PROPERTIES,
    Destination,
    Relation,
    TableResult,
)

log = logging.getLogger(__name__)


# -- the warehouse side --------------------------------------------------------------------


@contextmanager
def pinned(warehouse: Path, workdir: Path) -> Iterator[Path]:
    """A read-only view of the published warehouse file that a concurrent refresh cannot
    change: a refresh replaces the file by rename, so a hard link beside it keeps this
    version; where no link can be made (another file system, a read-only directory), a
    copy in `workdir`."""
    warehouse = Path(warehouse)
    if not warehouse.is_file():
        raise InvalidInput(f"warehouse {warehouse} does not exist: run `gpu-pricing refresh` first")
    remove_stale_pins(warehouse)
    # the pid in the name says whose pin it is: a killed publish's pin is removed by the next
    tmp = warehouse.with_name(f".{warehouse.name}.publish-{os.getpid()}-{uuid.uuid4().hex[:8]}")
    try:
        os.link(warehouse, tmp)
    except OSError:
        tmp = Path(workdir) / warehouse.name
        shutil.copyfile(warehouse, tmp)
    try:
        yield tmp
    finally:
        tmp.unlink(missing_ok=True)
        tmp.with_name(tmp.name + ".wal").unlink(missing_ok=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's live process
        return True
    return True


def remove_stale_pins(warehouse: Path) -> list[Path]:
    """Remove the pins (`.<file>.publish-<pid>-<id>`, and their `.wal`) that a publish
    killed before its cleanup left beside the warehouse: each holds a whole old version
    of the file. A pin whose process still runs is kept; a pin without a pid in its name
    (written before pins carried one) is stale by now."""
    warehouse = Path(warehouse)
    removed = []
    for pin in warehouse.parent.glob(f".{glob.escape(warehouse.name)}.publish-*"):
        owner = re.match(r"(\d+)-[0-9a-f]+(?:\.wal)?$", pin.name.rsplit(".publish-", 1)[1])
        if owner and _alive(int(owner[1])):
            continue  # a publish still running (this process's own included)
        pin.unlink(missing_ok=True)
        removed.append(pin)
    if removed:
        log.info("removed %d pin(s) a killed publish left: %s", len(removed), removed)
    return removed


def _select(
    con: duckdb.DuckDBPyConnection, rel: Relation, published: pa.Table | None = None
) -> pa.Table:
    """The relation's rows in write order; with `published` (the key columns of the rows
    already in the table), only the rows whose key is not among them (null-safe), so a
    night's append reads its delta, not the whole history, into memory."""
    return db.relation_arrow(con, rel.name, rel.order, without=published, key=rel.key)


def _as_of(con: duckdb.DuckDBPyConnection) -> str | None:
    # a warehouse without a ledger is a CatalogException, told apart by publish()
    value = db.run(con, queries.sql("last_load_finished"))[0][0]
    return value.isoformat() + "Z" if value is not None else None


# -- the Iceberg side ----------------------------------------------------------------------


def _table_location(dest: Destination, namespace: str, name: str) -> str:
    return dest.join(namespace, name)


def _partition_and_sort(txn, rel: Relation) -> None:
    from pyiceberg.table.sorting import NullOrder
    from pyiceberg.transforms import IdentityTransform, MonthTransform

    transforms = {"identity": IdentityTransform, "month": MonthTransform}
    if rel.partition:
        with txn.update_spec() as spec:
            for column, transform in rel.partition:
                name = column if transform == "identity" else f"{column}_{transform}"
                spec.add_field(column, transforms[transform](), name)
    with txn.update_sort_order() as order:
        for column in rel.order:
            order.asc(column, IdentityTransform(), NullOrder.NULLS_LAST)


def _write_table(
    catalog,
    ident: tuple[str, str],
    location: str,
    rel: Relation,
    con: duckdb.DuckDBPyConnection,
    props: dict[str, str],
) -> TableResult:
    from pyiceberg.exceptions import NoSuchTableError
    from pyiceberg.io.pyarrow import _dataframe_to_data_files

    schema = db.relation_schema(con, rel.name)
    count = db.relation_rows(con, rel.name)
    try:
        table = catalog.load_table(ident)
    except NoSuchTableError:
        table = None
    added: list[str] = []
    if table is None:
        txn = catalog.create_table_transaction(
            ident, schema=schema, location=location, properties=TABLE_PROPERTIES
        )
        _partition_and_sort(txn, rel)
        published = None
    else:
        txn = table.transaction()
        known = {f.name for f in table.schema().fields}
        added = [name for name in schema.names if name not in known]
        # a new column in the warehouse is added (optional) to the table schema; a type
        # change is allowed where Iceberg allows it (int -> long, float -> double), else
        # it fails here with the column named
        with txn.update_schema() as update:
            update.union_by_name(schema)
        published = table
    if rel.mode == "append":
        keys = None
        if published is not None and published.current_snapshot() is not None:
            keys = published.scan(selected_fields=rel.key).to_arrow()
        new = _select(con, rel, keys)
        txn.append(new, snapshot_properties=props)
        written = new.num_rows
    else:
        # one OVERWRITE snapshot: every current data file out, the new files in. pyiceberg's
        # Table.overwrite commits a DELETE and then an APPEND snapshot (two per night, the
        # first one empty), so the snapshot is produced here with its file writer
        # (_dataframe_to_data_files, the one Table.append uses; pyiceberg is pinned <0.13)
        rows = _select(con, rel)
        old_files = [task.file for task in published.scan().plan_files()] if published else []
        with txn.update_snapshot(snapshot_properties=props).overwrite() as overwrite:
            for data_file in old_files:
                overwrite.delete_data_file(data_file)
            if rows.num_rows:
                for data_file in _dataframe_to_data_files(
                    table_metadata=txn.table_metadata,
                    write_uuid=overwrite.commit_uuid,
                    df=rows,
                    io=txn._table.io,
                ):
                    overwrite.append_data_file(data_file)
        written = rows.num_rows
    committed = txn.commit_transaction()
    snapshot = committed.current_snapshot()
    total = int(snapshot.summary["total-records"]) if snapshot and snapshot.summary else 0
    return TableResult(
        name=rel.name,
        mode=rel.mode,
        rows=count,
        rows_written=written,
        table_rows=total,
        snapshot_id=snapshot.snapshot_id if snapshot else None,
        metadata_location=committed.metadata_location,
        schema_added=added,
    )


# -- files at the destination --------------------------------------------------------------


def _read_bytes(io, location: str) -> bytes | None:
    inp = io.new_input(location)
    if not inp.exists():
        return None
    with inp.open() as fh:
        return fh.read()


def _put_file(io, dest: Destination, location: str, source: Path) -> None:
    """Copy a local file to `location` so readers see the old or the new file, never a
    part: a rename on a local path; a single PUT (or completed multipart upload) on object
    storage."""
    if dest.is_local:
        target = Path(location)
        target.parent.mkdir(parents=True, exist_ok=True)
        partial = target.with_name(f".{target.name}.{uuid.uuid4().hex[:8]}")
        shutil.copyfile(source, partial)
        os.replace(partial, target)
        return
    out = io.new_output(location)
    with source.open("rb") as src, out.create(overwrite=True) as dst:
        shutil.copyfileobj(src, dst, 8 * 1024 * 1024)


def _put_bytes(io, dest: Destination, location: str, data: bytes, workdir: Path) -> None:
    tmp = workdir / uuid.uuid4().hex
    tmp.write_bytes(data)
    _put_file(io, dest, location, tmp)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(8 * 1024 * 1024), b""):
            digest.update(chunk)
    return digest.hexdigest()

