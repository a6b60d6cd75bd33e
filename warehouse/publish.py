"""Publish the warehouse for a team: the analyst-facing relations as Apache Iceberg tables
(through pyiceberg) on a local path or object storage, plus the DuckDB file itself and a
small manifest.

Layout at the destination (`--to`, e.g. `s3://team-bucket/gpu-pricing`):

    <to>/catalog.db                       SQL catalog (SQLite) unless another is configured
    <to>/<namespace>/<table>/metadata/*.metadata.json, data/<partition>/*.parquet
    <to>/gpu_pricing.duckdb               the warehouse file (DuckDB `ATTACH ... (READ_ONLY)`)
    <to>/manifest.json                    the last complete publish: version, as-of time,
    <to>/manifests/<publish_id>.json      row counts, snapshot id and metadata file per table

Each publish commits one Iceberg snapshot per table (one catalog commit per table, schema
changes included): current relations are overwritten, history relations get the rows not
yet published (`fct_spot_prices`, `_loads`), and `fct_gpu_prices` (effective-dated, SCD2:
closing a price period changes an existing row's `valid_to`) is overwritten, so its
snapshot of night N is the whole history as known that night. Every snapshot carries
`gpu-pricing.publish-id` and `gpu-pricing.as-of` in its summary.

Consistency across tables: with the default SQLite catalog, all commits go to a local copy
of `catalog.db`, which replaces the published one only after every table is written (a
single object PUT, or a rename on a local path), so a publish that dies midway leaves every
table at the previous night's snapshot. With a shared catalog (Postgres, REST, Glue) each
table commits on its own; the manifest, written last, names the set of snapshots of the
last complete publish. Re-running a failed publish converges: overwrites are idempotent and
appends skip rows already published.

The warehouse is read read-only from a pinned copy (a hard link, else a copy) of the
published file, so the tables, the uploaded DuckDB file and the manifest all describe the
same refresh even when a refresh replaces the file meanwhile. Credentials come from the
standard chains of pyarrow's filesystems (AWS SDK, Google ADC, Azure) and are never logged.
"""

from __future__ import annotations

import glob
import hashlib
import json
import logging
import os
import re
import shutil
import sqlite3
import tempfile
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import duckdb
import pyarrow as pa

from common.errors import InvalidInput, PricingError
from warehouse import db, queries

log = logging.getLogger(__name__)

MANIFEST_VERSION = 1
DEFAULT_NAMESPACE = "gpu_pricing"
CATALOG_NAME = "gpu_pricing"  # the SQL catalog's name: Spark/Trino must use the same one
CATALOG_FILE = "catalog.db"
DUCKDB_FILE = "gpu_pricing.duckdb"
MANIFEST_FILE = "manifest.json"
SUMMARY_PUBLISH_ID = "gpu-pricing.publish-id"
SUMMARY_AS_OF = "gpu-pricing.as-of"

# pyiceberg bins rows into files by in-memory Arrow size; zstd Parquet on disk is 3-10x
# smaller, so 256 MiB here gives files of roughly 30-90 MB: large enough for object-store
# reads, small enough that a query on one provider-month reads one or two files.
TABLE_PROPERTIES = {
    "write.target-file-size-bytes": str(256 * 1024 * 1024),
    "write.parquet.compression-codec": "zstd",
    "write.metadata.delete-after-commit.enabled": "true",
    "write.metadata.previous-versions-max": "100",
}
SCHEMES = {"s3": "s3", "s3a": "s3", "gs": "gs", "gcs": "gs", "az": "abfs", "abfs": "abfs",
           "abfss": "abfs"}  # fmt: skip


class PublishError(PricingError):
    """A publish failed: names the destination, the table and the cause."""


@dataclass(frozen=True)
class Relation:
    """One published relation. `key`: for append tables, the columns that identify a row
    already published. `partition`: (column, transform) with transform identity | month."""

    name: str
    mode: Literal["overwrite", "append"]
    order: tuple[str, ...]
    partition: tuple[tuple[str, str], ...] = ()
    key: tuple[str, ...] = ()


# Partitioned by what analysts filter on: history by provider and month (a provider's
# quarter reads three partitions), the wide current marts by provider; the small marts
# (tens to hundreds of rows) stay one file. Rows are sorted so that Parquet min/max
# statistics prune on GPU and region within a partition.
RELATIONS: tuple[Relation, ...] = (
    Relation(
        "mart_gpu_offers_current",
        "overwrite",
        ("provider", "gpu_name", "region", "instance_type", "pricing_model"),
        (("provider", "identity"),),
    ),
    Relation(
        "fct_gpu_prices",
        "overwrite",
        ("provider", "gpu_name", "region", "instance_type", "pricing_model", "valid_from"),
        (("provider", "identity"), ("valid_from", "month")),
    ),
    Relation(
        "fct_spot_prices",
        "append",
        ("provider", "gpu_name", "region", "zone", "instance_type", "observed_at"),
        (("provider", "identity"), ("observed_at", "month")),
        key=("provider", "region", "zone", "instance_type", "observed_at"),
    ),
    Relation(
        "mart_spot_price_stats", "overwrite", ("provider", "gpu_name", "region", "instance_type")
    ),
    Relation(
        "mart_cheapest_gpu_hour", "overwrite", ("gpu_name", "gpu_memory_gib", "pricing_model")
    ),
    Relation(
        "mart_cost_per_token",
        "overwrite",
        ("provider", "gpu_name", "region", "instance_type", "pricing_model"),
        (("provider", "identity"),),
    ),
    Relation("mart_breakeven_onprem", "overwrite", ("gpu_name", "gpu_memory_gib")),
    Relation(
        "mart_spot_breakeven", "overwrite", ("provider", "gpu_name", "region", "instance_type")
    ),
    Relation("dim_gpus", "overwrite", ("gpu_name", "gpu_memory_gib")),
    Relation(
        "_loads",
        "append",
        ("started_at", "load_id"),
        (("provider", "identity"), ("started_at", "month")),
        key=("load_id", "provider", "endpoint", "scope"),
    ),
)


@dataclass(frozen=True)
class Destination:
    """Where to publish. `root`: a local absolute path, or `s3://bucket/prefix`,
    `gs://bucket/prefix`, `abfs://container/prefix` (given as az://, abfs:// or abfss://)."""

    root: str
    scheme: str  # file | s3 | gs | abfs
    account: str | None = None  # Azure storage account, from abfss://container@account.dfs...

    @classmethod
    def parse(cls, value: str) -> Destination:
        text = str(value).strip()
        if not text:
            raise InvalidInput("--to: a local path or an s3://, gs:// or az:// URL is required")
        parsed = urlparse(text)
        if len(parsed.scheme) <= 1:  # no scheme (or a Windows drive letter): a local path
            return cls(str(Path(text).expanduser().resolve()), "file")
        if parsed.scheme == "file":
            return cls(str(Path(parsed.path).resolve()), "file")
        scheme = SCHEMES.get(parsed.scheme)
        if scheme is None:
            raise InvalidInput(
                f"--to {parsed.scheme}://...: unsupported scheme (use a local path, s3://, gs:// or az://)"
            )
        account = None
        if scheme == "abfs" and parsed.username and not parsed.password:
            # the Hadoop form abfss://<container>@<account>.dfs.core.windows.net/<path>
            bucket, account = parsed.username, (parsed.hostname or "").split(".")[0] or None
        elif parsed.username or parsed.password:
            raise InvalidInput(
                "--to: credentials do not belong in the URL; they come from the standard chains"
            )
        else:
            bucket = parsed.netloc
        if not bucket:
            raise InvalidInput(f"--to {parsed.scheme}://: names no bucket or container")
        prefix = parsed.path.strip("/")
        return cls(f"{scheme}://{bucket}" + (f"/{prefix}" if prefix else ""), scheme, account)

    def join(self, *parts: str) -> str:
        sep = os.sep if self.scheme == "file" else "/"
        return sep.join([self.root.rstrip("/"), *parts])

    @property
    def is_local(self) -> bool:
        return self.scheme == "file"


@dataclass
class TableResult:
    name: str
    mode: str
    rows: int  # rows of the relation in the warehouse
    # rows this publish wrote: all of them for overwrite, the new ones for append
    rows_written: int
    table_rows: int  # rows in the table's new snapshot
    snapshot_id: int | None
    metadata_location: str
    schema_added: list[str] = field(default_factory=list)


@dataclass
class PublishResult:
    to: str
    publish_id: str
    published_at: str
    as_of: str | None
    namespace: str
    catalog: dict[str, str]
    tables: list[TableResult]
    duckdb: dict[str, Any] | None
    manifest: str

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "tables": [asdict(t) for t in self.tables]}


# -- configuration -------------------------------------------------------------------------

_SECRET_WORDS = re.compile(r"secret|password|token|credential|access-key|account-key|sas", re.I)


def resolve_properties(props: Mapping[str, str] | None, where: str) -> dict[str, str]:
    """Catalog or FileIO properties from the config: a key ending in `_env` names an
    environment variable holding the value (`uri_env = "GPU_PRICING_CATALOG_URI"` ->
    `uri`), resolved only now and never echoed."""
    out: dict[str, str] = {}
    for key, value in (props or {}).items():
        if key.endswith("_env"):
            name = key[: -len("_env")]
            if value not in os.environ:
                raise InvalidInput(f"{where}.{key}: environment variable {value} is not set")
            out[name] = os.environ[value]
        else:
            out[key] = str(value)
    return out


def io_properties(dest: Destination, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """FileIO properties: pyarrow's filesystems, region and endpoint from the standard AWS
    variables when set (pyiceberg would otherwise ask S3 for the bucket's region), and the
    configured extras. Keys and secrets stay with the filesystems' own credential chains."""
    props = {"py-io-impl": "pyiceberg.io.pyarrow.PyArrowFileIO"}
    if dest.scheme == "s3":
        region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION")
        if region:
            props["s3.region"] = region
        endpoint = os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint:
            props["s3.endpoint"] = endpoint
    if dest.scheme == "abfs" and (dest.account or os.environ.get("AZURE_STORAGE_ACCOUNT_NAME")):
        props["adls.account-name"] = dest.account or os.environ["AZURE_STORAGE_ACCOUNT_NAME"]
    props.update(extra or {})
    return props


def _scrub(message: str, secrets: Sequence[str]) -> str:
    for secret in secrets:
        if secret and len(secret) >= 4:
            message = message.replace(secret, "***")
    return message.splitlines()[0] if message else message


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


# -- the publish ---------------------------------------------------------------------------


def publish(
    warehouse: Path,
    to: str,
    *,
    namespace: str = DEFAULT_NAMESPACE,
    catalog: Mapping[str, str] | None = None,
    properties: Mapping[str, str] | None = None,
    include_duckdb: bool = True,
    relations: Sequence[Relation] = RELATIONS,
) -> PublishResult:
    """Publish the warehouse to `to`. `catalog`: pyiceberg catalog properties (`type`,
    `uri`, ...; already resolved), default the SQLite catalog file at the destination.
    `properties`: FileIO properties (`s3.region`, `s3.endpoint`, ...)."""
    from pyiceberg.catalog import load_catalog
    from pyiceberg.catalog.sql import SqlCatalog

    dest = Destination.parse(to)
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", namespace):
        raise InvalidInput(f"--namespace {namespace!r}: letters, digits and '_' only")
    io_props = io_properties(dest, properties)
    catalog_props = dict(catalog or {})
    secrets = [v for k, v in {**catalog_props, **io_props}.items() if _SECRET_WORDS.search(k)]
    secrets += [catalog_props.get("uri", "")]
    published_at = datetime.now(UTC).replace(tzinfo=None)
    publish_id = published_at.strftime("%Y%m%dT%H%M%S%fZ")
    snapshot_props = {SUMMARY_PUBLISH_ID: publish_id}
    step = "reading the warehouse"
    with (
        tempfile.TemporaryDirectory(prefix="gpu-pricing-publish-") as tmp,
        pinned(warehouse, Path(tmp)) as pinned_path,
    ):
        workdir = Path(tmp)
        try:
            con = duckdb.connect(str(pinned_path), read_only=True)
        except duckdb.Error as exc:
            raise PublishError(f"warehouse {warehouse} cannot be opened: {exc}") from exc
        try:
            as_of = _as_of(con)
            if as_of:
                snapshot_props[SUMMARY_AS_OF] = as_of
            step = "catalog"
            local_catalog = None
            catalog_before: bytes | None = None
            io = _file_io(io_props)
            if catalog_props:
                cat = load_catalog(CATALOG_NAME, **{**io_props, **catalog_props})
                catalog_doc = {"type": catalog_props.get("type", "?"), "name": CATALOG_NAME}
            else:
                local_catalog = workdir / CATALOG_FILE
                catalog_before = _read_bytes(io, dest.join(CATALOG_FILE))
                if catalog_before is not None:
                    local_catalog.write_bytes(catalog_before)
                cat = SqlCatalog(
                    CATALOG_NAME, uri=f"sqlite:///{local_catalog}", warehouse=dest.root, **io_props
                )
                catalog_doc = {"type": "sql", "name": CATALOG_NAME, "file": CATALOG_FILE}
            cat.create_namespace_if_not_exists(namespace)
            tables = []
            for rel in relations:
                step = f"table {rel.name}"
                result = _write_table(
                    cat,
                    (namespace, rel.name),
                    _table_location(dest, namespace, rel.name),
                    rel,
                    con,
                    snapshot_props,
                )
                log.info(
                    "published %s: %d rows written (%s)", rel.name, result.rows_written, rel.mode
                )
                tables.append(result)
            if local_catalog is not None:
                step = "catalog upload"
                if hasattr(cat, "engine"):
                    cat.engine.dispose()  # SQLite file closed before it is copied
                if _read_bytes(io, dest.join(CATALOG_FILE)) != catalog_before:
                    raise PublishError(
                        f"publish to {dest.root}: {CATALOG_FILE} changed while this publish ran "
                        "(another publisher?); nothing of this publish is visible, run it again"
                    )
                _check_sqlite(local_catalog)
                _put_file(io, dest, dest.join(CATALOG_FILE), local_catalog)
            duck_doc = None
            if include_duckdb:
                step = "duckdb upload"
                con.close()
                _put_file(io, dest, dest.join(DUCKDB_FILE), pinned_path)
                duck_doc = {
                    "file": DUCKDB_FILE,
                    "bytes": pinned_path.stat().st_size,
                    "sha256": _sha256(pinned_path),
                }
            step = "manifest"
            result = PublishResult(
                to=dest.root,
                publish_id=publish_id,
                published_at=published_at.isoformat() + "Z",
                as_of=as_of,
                namespace=namespace,
                catalog=catalog_doc,
                tables=tables,
                duckdb=duck_doc,
                manifest=dest.join(MANIFEST_FILE),
            )
            doc = json.dumps(_manifest(result), indent=2).encode()
            _put_bytes(io, dest, dest.join("manifests", f"{publish_id}.json"), doc, workdir)
            _put_bytes(io, dest, dest.join(MANIFEST_FILE), doc, workdir)
            return result
        except (PricingError, InvalidInput):
            raise
        except duckdb.CatalogException as exc:
            raise InvalidInput(
                f"warehouse {warehouse}: {step}: {str(exc).splitlines()[0]} "
                "(run `gpu-pricing refresh` to build the marts first)"
            ) from None
        except Exception as exc:
            message = _scrub(f"{type(exc).__name__}: {exc}", secrets)
            raise PublishError(f"publish to {dest.root}: {step}: {message}") from None
        finally:
            con.close()


def _file_io(props: dict[str, str]):
    from pyiceberg.io.pyarrow import PyArrowFileIO

    return PyArrowFileIO(properties=props)


def _check_sqlite(path: Path) -> None:
    with sqlite3.connect(path) as check:
        if check.execute("PRAGMA integrity_check").fetchone()[0] != "ok":
            raise PublishError(f"the catalog copy {path} failed SQLite's integrity check")


def _manifest(result: PublishResult) -> dict[str, Any]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        package = version("gpu-pricing")
    except PackageNotFoundError:
        package = None
    return {
        "manifest_version": MANIFEST_VERSION,
        "gpu_pricing_version": package,
        "publish_id": result.publish_id,
        "published_at": result.published_at,
        "as_of": result.as_of,
        "namespace": result.namespace,
        "catalog": result.catalog,
        "duckdb": result.duckdb,
        "tables": {
            t.name: {
                "mode": t.mode,
                "rows": t.rows,
                "rows_written": t.rows_written,
                "table_rows": t.table_rows,
                "snapshot_id": t.snapshot_id,
                "metadata_location": t.metadata_location,
            }
            for t in result.tables
        },
    }


def read_manifest(to: str, properties: Mapping[str, str] | None = None) -> dict[str, Any] | None:
    """The manifest of the last complete publish at `to` (None when nothing is published)."""
    dest = Destination.parse(to)
    data = _read_bytes(_file_io(io_properties(dest, properties)), dest.join(MANIFEST_FILE))
    return json.loads(data) if data is not None else None


def open_catalog(to: str, properties: Mapping[str, str] | None = None, *, workdir: Path):
    """A read-only handle on the SQLite catalog published at `to` (downloaded into
    `workdir`): what a Python reader (or a test) uses to load the tables."""
    from pyiceberg.catalog.sql import SqlCatalog

    dest = Destination.parse(to)
    props = io_properties(dest, properties)
    data = _read_bytes(_file_io(props), dest.join(CATALOG_FILE))
    if data is None:
        raise InvalidInput(f"{dest.join(CATALOG_FILE)}: nothing published there yet")
    local = Path(workdir) / f"catalog-{uuid.uuid4().hex[:8]}.db"
    local.write_bytes(data)
    return SqlCatalog(CATALOG_NAME, uri=f"sqlite:///{local}", warehouse=dest.root, **props)
