"""What a publish writes and where (warehouse.publish runs it): the layout's names, the
relations published and how, the destination, the results, and the catalog and file-IO
properties (credentials resolved from the environment, scrubbed from messages)."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

from common.errors import InvalidInput, PricingError

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

