"""AWS Price List: the Query API (GetProducts per region and accelerated family) and the
bulk offer CSV per region (its current version from region_index.json; a region whose
stored version is not older is skipped; the file streamed to disk, its accelerated rows
kept), with the download cache."""

from __future__ import annotations

import csv
import hashlib
import logging
import os
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import polars as pl

from connectors.aws import settings as s
from connectors.aws.ec2 import walk
from connectors.aws.sdk import DEFAULT_POLICY, backoff
from connectors.errors import (
    SourceUnavailable,
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy, request_json
from connectors.kit.page import FetchContext, Page, utc_now

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)


# --- Price List Query API ------------------------------------------------------------------


def pricing_filters(region: str, family: str) -> list[dict[str, str]]:
    terms = [("regionCode", region), *s.PRICING_FILTERS, ("instanceFamily", family)]
    return [{"Type": "TERM_MATCH", "Field": f, "Value": v} for f, v in terms]


def fetch_price_list(
    pricing: Any, region: str, *, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    """GetProducts for one region's accelerated instance families (on-demand and reserved
    terms in each item)."""
    for family in s.PRICING_INSTANCE_FAMILIES:
        params: dict[str, Any] = {
            "ServiceCode": s.PRICING_SERVICE_CODE,
            "Filters": pricing_filters(region, family),
            "FormatVersion": "aws_v1",
            "MaxResults": s.PRICING_PAGE_SIZE,
        }
        yield from walk(
            pricing.get_products, s.PRICE_LIST, "PriceList", region, params, policy=policy
        )


@dataclass(frozen=True)
class OfferVersion:
    region: str
    version: str  # "20250912225308": the publication time, UTC
    url: str

    @property
    def published_at(self) -> datetime:
        return datetime.strptime(self.version, s.OFFER_VERSION_FORMAT)


def offer_versions(
    client: httpx.Client,
    *,
    base_url: str = s.OFFERS_BASE_URL,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> dict[str, OfferVersion]:
    """The current offer-file version of every region, from region_index.json (one small
    request): `currentVersionUrl` = /offers/v1.0/aws/AmazonEC2/<version>/<region>/index.json."""
    index = request_json(
        client,
        "GET",
        base_url + s.REGION_INDEX_PATH,
        provider=s.PROVIDER,
        endpoint=s.OFFER_CSV,
        policy=policy,
    )
    regions = index.get("regions") if isinstance(index, dict) else None
    if not isinstance(regions, dict):
        raise UnexpectedResponse(
            s.PROVIDER, s.OFFER_CSV, "region_index.json has no 'regions' object", repr(index)
        )
    versions = {}
    for code, entry in regions.items():
        path = entry.get("currentVersionUrl", "") if isinstance(entry, dict) else ""
        match = re.search(r"/(\d{14})/", path)
        if not match:
            raise UnexpectedResponse(
                s.PROVIDER,
                s.OFFER_CSV,
                f"region {code}: currentVersionUrl has no version",
                excerpt=repr(entry),
            )
        versions[code] = OfferVersion(
            code, match.group(1), base_url + path.rsplit("/", 1)[0] + "/index.csv"
        )
    return versions


def _download(
    client: httpx.Client, url: str, dest: Path, *, policy: RetryPolicy
) -> tuple[str, int]:
    """Stream `url` to `dest` (never whole in memory); returns (sha256, bytes)."""
    import httpx  # here, not at the top: a snapshot replay loads no httpx (connectors.kit.http)

    last: Exception | None = None
    for attempt in range(1, policy.attempts + 1):
        part = dest.with_name(dest.name + ".part")
        try:
            with client.stream("GET", url) as response:
                if response.status_code == 429 or response.status_code >= 500:
                    last = SourceUnavailable(
                        s.PROVIDER, s.OFFER_CSV, f"HTTP {response.status_code} from {url}"
                    )
                elif response.status_code >= 400:
                    raise UnexpectedResponse(
                        s.PROVIDER,
                        s.OFFER_CSV,
                        f"HTTP {response.status_code} from {url}",
                        excerpt=response.read().decode(errors="replace"),
                    )
                else:
                    digest, size = hashlib.sha256(), 0
                    with part.open("wb") as fh:
                        for chunk in response.iter_bytes(s.DOWNLOAD_CHUNK_BYTES):
                            fh.write(chunk)
                            digest.update(chunk)
                            size += len(chunk)
                    part.replace(dest)
                    return digest.hexdigest(), size
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            last = SourceUnavailable(s.PROVIDER, s.OFFER_CSV, f"{type(exc).__name__} from {url}")
        part.unlink(missing_ok=True)
        if attempt < policy.attempts:
            time.sleep(backoff(policy, attempt))
    assert last is not None
    raise last


def read_offer_metadata(path: Path) -> dict[str, str]:
    """The 5 metadata lines ("FormatVersion","v1.0" ... "OfferCode","AmazonEC2")."""
    with path.open(newline="", encoding="utf-8") as fh:
        head = [next(fh, "") for _ in range(s.OFFER_METADATA_LINES)]
    meta = {}
    for row in csv.reader(head):
        if len(row) >= 2:
            meta[row[0]] = row[1]
    if "Version" not in meta or "Publication Date" not in meta:
        raise UnexpectedResponse(
            s.PROVIDER,
            s.OFFER_CSV,
            f"{path.name}: no Version / Publication Date metadata lines",
            excerpt="".join(head),
        )
    return meta


def accelerated_rows(columns: list[str]) -> pl.Expr:
    """Offer CSV rows of accelerated instances in our price scope (settings.OFFER_CSV_SCOPE),
    by header name. A column the file lacks (older headers) does not filter."""
    gpu = pl.col("GPU").fill_null("") if "GPU" in columns else pl.lit("")
    family = pl.col("Instance Family").fill_null("") if "Instance Family" in columns else pl.lit("")
    itype = pl.col("Instance Type").fill_null("") if "Instance Type" in columns else pl.lit("")
    accelerated = (
        (~gpu.is_in(["", "NA", "0"]))
        | family.is_in(list(s.OFFER_CSV_ACCELERATED_FAMILIES))
        | itype.str.contains(s.ACCELERATED_TYPE_REGEX)
    )
    in_scope = [
        pl.col(column).fill_null("").is_in(list(values))
        for column, values, _ in s.OFFER_CSV_SCOPE
        if column in columns
    ]
    return pl.all_horizontal(accelerated, *in_scope)


class _Misaligned(Exception):
    """A data line is not the row the CSV reader numbered (a quoted field spans lines)."""


def filter_offer_csv(src: Path, dst: Path) -> int:
    """Keep the metadata lines, the header and the accelerated in-scope rows of an offer
    CSV; returns the number of rows kept. Memory stays flat whatever the file size:
    1. a Polars scan of only the columns the filter reads finds the kept rows' numbers
       (projection pushdown: 11 of the 91 columns are parsed);
    2. one pass over the file copies those lines verbatim, each checked against its RateCode.
    The kept rows are byte-for-byte the source's. If lines and rows do not line up (a
    quoted field with a newline, never seen in these files), the rows are written by a
    Polars scan + sink instead (same rows, values re-quoted)."""
    scan = pl.scan_csv(src, skip_rows=s.OFFER_METADATA_LINES, infer_schema=False)
    columns = scan.collect_schema().names()
    # RateCode (<sku>.<term>.<rate>) is unique per row; SKU is shared by a product's rows
    key = next(([c] for c in ("RateCode", "SKU") if c in columns), [])
    kept = (
        scan.with_row_index("_row")
        .filter(accelerated_rows(columns))
        .select("_row", *key)
        .collect(engine="streaming")
    )
    try:
        _copy_lines(src, dst, kept.iter_rows())
    except _Misaligned:
        log.warning("%s: lines and CSV rows do not line up; rewriting the kept rows", src.name)
        with src.open("rb") as fh:
            head = b"".join(fh.readline() for _ in range(s.OFFER_METADATA_LINES))
        body = dst.with_name(dst.name + ".rows")
        scan.filter(accelerated_rows(columns)).sink_csv(body, quote_style="non_numeric")
        with dst.open("wb") as out, body.open("rb") as rows:
            out.write(head)
            shutil.copyfileobj(rows, out)
        body.unlink()
    return kept.height


def _copy_lines(src: Path, dst: Path, rows: Iterator[tuple]) -> None:
    with src.open("rb") as fh, dst.open("wb") as out:
        for _ in range(s.OFFER_METADATA_LINES + 1):  # metadata lines and the header
            out.write(fh.readline())
        want = next(rows, None)
        for number, line in enumerate(fh):
            if want is None:
                return
            if number == want[0]:
                if len(want) > 1 and want[1] and f'"{want[1]}"'.encode() not in line:
                    raise _Misaligned
                out.write(line)
                want = next(rows, None)
        if want is not None:
            raise _Misaligned


def cache_dir(ctx: FetchContext) -> Path:
    root = ctx.settings.get("aws_cache_dir") or os.environ.get(s.CACHE_DIR_ENV)
    path = Path(root) if root else Path.home() / ".cache" / "gpu-pricing"
    path = path / "aws" / "offer_csv"
    path.mkdir(parents=True, exist_ok=True)
    return path


def fetch_offer_csv(
    client: httpx.Client,
    offer: OfferVersion,
    *,
    directory: Path,
    stored_version_at: datetime | None = None,
    keep_full: bool = False,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page]:
    """One region's offer CSV, unless the version already stored is not older."""
    if stored_version_at is not None and offer.published_at <= stored_version_at:
        log.info(
            "aws/offer_csv %s: version %s already stored, not downloaded",
            offer.region,
            offer.version,
        )
        return
    full = directory / f"{offer.region}-{offer.version}.csv"
    digest, size = _download(client, offer.url, full, policy=policy)
    meta = read_offer_metadata(full)
    kept = directory / f"{offer.region}-{meta['Version']}.accelerated.csv"
    rows = filter_offer_csv(full, kept)
    if not keep_full:
        full.unlink()
    log.info(
        "aws/offer_csv %s: version %s, %d bytes, %d accelerated rows kept",
        offer.region,
        meta["Version"],
        size,
        rows,
    )
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.OFFER_CSV,
        fetched_at=utc_now(),
        request={
            "region": offer.region,
            "url": offer.url,
            "source_version": meta["Version"],
            "publication_date": meta["Publication Date"],
            "source_sha256": digest,
            "source_bytes": size,
            "rows_kept": rows,
            "prefilter": "accelerated instance rows in scope (connectors/aws/README.md)",
        },
        path=kept,
        source_url=offer.url,
    )
