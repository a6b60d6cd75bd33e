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

import json
import logging
import re
import sqlite3
import tempfile
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import duckdb

from common.errors import InvalidInput, PricingError

# the publish's two sides and its spec; every name stays importable from here
from warehouse.publish_io import (
    _as_of,
    _put_bytes,
    _put_file,
    _read_bytes,
    _sha256,
    _table_location,
    _write_table,
    pinned,
    remove_stale_pins,  # noqa: F401
)
from warehouse.publish_spec import (  # noqa: F401
    _SECRET_WORDS,
    CATALOG_FILE,
    CATALOG_NAME,
    DEFAULT_NAMESPACE,
    DUCKDB_FILE,
    MANIFEST_FILE,
    MANIFEST_VERSION,
    RELATIONS,
    SCHEMES,
    SUMMARY_AS_OF,
    SUMMARY_PUBLISH_ID,
    TABLE_PROPERTIES,
    Destination,
    PublishError,
    PublishResult,
    Relation,
    TableResult,
    _scrub,
    io_properties,
    resolve_properties,
)

log = logging.getLogger(__name__)


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
