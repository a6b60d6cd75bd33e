"""AWS fetch: network only, bodies exactly as received (boto3 responses serialised to JSON
with datetimes as ISO 8601 strings, `ResponseMetadata` left out: it is transport detail
whose request id would make every page look new).

Credentialed (default boto3 chain; none -> MissingCredentials, the public routes still run):
- EC2 DescribeInstanceTypes per region, paged on NextToken (MaxResults 100), filtered on
  the accelerated families;
- EC2 DescribeSpotPriceHistory per region, Linux/UNIX, accelerated families, paged on
  NextToken until it is "" or null; incremental from the region's watermark (the newest
  point already stored), else the last N days;
- Price List GetProducts (client in us-east-1) per region and accelerated instance family,
  paged until NextToken is absent;
- EC2 DescribeCapacityBlockOfferings (Capacity Blocks for ML) per region where a type is
  sold as blocks, per type and duration, for N instances starting within the next weeks,
  paged with boto3's paginator.
Public (no credentials):
- the Savings Plans rate file per region (AWSComputeSavingsPlan: Compute and EC2 Instance
  Savings Plans), its accelerated Linux shared-tenancy rates kept (README: why);
- the bulk offer CSV per region: the current version is read from region_index.json and
  a region whose stored version is not older is skipped without a download; otherwise the
  file is streamed to disk, and its accelerated-instance rows are kept (README: why);
- the Spot Instance Advisor JSON.

Throttling (RequestLimitExceeded, Throttling ...) and 5xx are retried here with
exponential backoff and full jitter (botocore's own retries are off, so there is one
retry layer); a region that still fails becomes a FetchFailure and the others go on.
"""

from __future__ import annotations

import csv
import hashlib
import logging
import os
import random
import re
import shutil
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import polars as pl

from connectors.aws import settings as s
from connectors.errors import (
    ConnectorError,
    MissingCredentials,
    SourceUnavailable,
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, per_scope, utc_now
from connectors.kit.redact import register

log = logging.getLogger(__name__)

DEFAULT_POLICY = RetryPolicy(
    attempts=s.RETRY_ATTEMPTS, backoff_s=s.RETRY_BACKOFF_S, max_backoff_s=s.RETRY_MAX_BACKOFF_S
)


# --- serialising SDK responses ---------------------------------------------------------


def jsonable(value: Any) -> Any:
    """A boto3 response as JSON values: datetimes become ISO 8601 strings (UTC)."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
            return value.isoformat().replace("+00:00", "Z")
        return value.isoformat() + "Z"
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def _iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- calling boto3 with retries and our error types ------------------------------------


def _backoff(policy: RetryPolicy, attempt: int) -> float:
    return random.uniform(0, min(policy.max_backoff_s, policy.backoff_s * 2 ** (attempt - 1)))


def call(
    operation: Callable[..., dict],
    *,
    endpoint: str,
    region: str,
    policy: RetryPolicy = DEFAULT_POLICY,
    **params: Any,
) -> dict:
    """One SDK call: throttling, 5xx and connection errors retried; the rest mapped to
    connectors.errors (the message names region, operation and AWS error code)."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        NoCredentialsError,
        ReadTimeoutError,
    )
    from botocore.exceptions import (
        ConnectionError as BotoConnectionError,
    )
    from botocore.parsers import ResponseParserError

    name = getattr(operation, "__name__", "call")
    last: ConnectorError | None = None
    for attempt in range(1, policy.attempts + 1):
        try:
            return operation(**params)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
            where = f"{name} in {region}: {code or 'error'}"
            if code in s.THROTTLING_CODES or status >= 500:
                last = SourceUnavailable(s.PROVIDER, endpoint, f"{where} (HTTP {status})")
            elif code in s.REGION_DISABLED_CODES:
                raise UnexpectedResponse(
                    s.PROVIDER,
                    endpoint,
                    f"{where}: region not enabled for this account (opt-in region) or the "
                    "credentials lack permission",
                    excerpt=str(error.get("Message", "")),
                ) from exc
            else:
                raise UnexpectedResponse(
                    s.PROVIDER, endpoint, where, excerpt=str(error.get("Message", ""))
                ) from exc
        except NoCredentialsError as exc:
            raise MissingCredentials(
                s.PROVIDER, endpoint, "no AWS credentials in the default chain"
            ) from exc
        except (BotoConnectionError, ReadTimeoutError) as exc:
            last = SourceUnavailable(
                s.PROVIDER, endpoint, f"{name} in {region}: {type(exc).__name__}"
            )
        except ResponseParserError as exc:
            # a body that is not AWS's XML/JSON (a proxy's page, an empty answer): one
            # line, the body cut to an excerpt
            raise UnexpectedResponse(
                s.PROVIDER,
                endpoint,
                f"{name} in {region}: the response is not an AWS {name} answer",
                excerpt=str(exc),
            ) from None
        except BotoCoreError as exc:
            raise SourceUnavailable(
                s.PROVIDER, endpoint, f"{name} in {region}: {type(exc).__name__}: {str(exc)[:300]}"
            ) from exc
        if attempt < policy.attempts:
            wait = _backoff(policy, attempt)
            log.warning(
                "%s (attempt %d/%d), retrying in %.2fs", last, attempt, policy.attempts, wait
            )
            time.sleep(wait)
    assert last is not None
    raise last


# --- EC2 ---------------------------------------------------------------------------------


def _type_filter() -> list[dict[str, Any]]:
    return [{"Name": "instance-type", "Values": list(s.ACCELERATED_TYPE_PATTERNS)}]


def _walk(
    operation: Any,
    endpoint: str,
    list_key: str,
    region: str,
    params: dict[str, Any],
    *,
    policy: RetryPolicy,
) -> Iterator[Page]:
    """Page through one boto3 operation on NextToken: the walk ends on a missing, null or
    empty ("") token, the signals the EC2 and Price List APIs use. Each response is one
    Page, serialised to JSON (datetimes as ISO 8601), its request recorded with it."""
    token: str | None = None
    seq = 0
    tokens: set[str] = set()  # a NextToken seen before would walk the same pages forever
    while True:
        request = {**params, **({"NextToken": token} if token else {})}
        body = jsonable(call(operation, endpoint=endpoint, region=region, policy=policy, **request))
        if not isinstance(body.get(list_key), list):
            raise UnexpectedResponse(
                s.PROVIDER, endpoint, f"region {region}: no {list_key!r} list", excerpt=repr(body)
            )
        seq += 1
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"region": region, **jsonable(request), "page": seq},
            body=body,
        )
        token = body.get("NextToken")
        if not token:
            return
        if token in tokens:
            raise UnexpectedResponse(
                s.PROVIDER,
                endpoint,
                f"region {region}: page {seq} repeats an earlier NextToken {token[:80]!r} "
                "(a paging cycle)",
            )
        tokens.add(token)


def fetch_instance_types(
    ec2: Any, region: str, *, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    """DescribeInstanceTypes of the accelerated families offered in one region."""
    params: dict[str, Any] = {"Filters": _type_filter(), "MaxResults": s.INSTANCE_TYPES_PAGE_SIZE}
    yield from _walk(
        ec2.describe_instance_types,
        s.INSTANCE_TYPES,
        "InstanceTypes",
        region,
        params,
        policy=policy,
    )


def fetch_spot_history(
    ec2: Any,
    region: str,
    *,
    since: datetime,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page]:
    """DescribeSpotPriceHistory from `since` (naive UTC) to now. AWS also returns the
    last change before `since` (the price in effect then): a point we may already hold,
    deduplicated in staging."""
    params: dict[str, Any] = {
        "StartTime": since.replace(tzinfo=UTC),
        "ProductDescriptions": list(s.SPOT_PRODUCT_DESCRIPTIONS),
        "Filters": _type_filter(),
        "MaxResults": s.SPOT_PAGE_SIZE,
    }
    yield from _walk(
        ec2.describe_spot_price_history,
        s.SPOT_HISTORY,
        "SpotPriceHistory",
        region,
        params,
        policy=policy,
    )


def spot_start(ctx: FetchContext, region: str, now: datetime) -> datetime:
    """Where a region's spot walk starts: its watermark, else N days back."""
    mark = ctx.watermarks.get((s.SPOT_HISTORY, region))
    if mark is not None:
        return mark
    days = int(ctx.settings.get("aws_spot_lookback_days", s.SPOT_LOOKBACK_DAYS))
    return now - timedelta(days=days)


# --- EC2 Capacity Blocks for ML ----------------------------------------------------------


def _paginated(
    client: Any,
    operation: str,
    endpoint: str,
    list_key: str,
    region: str,
    params: dict[str, Any],
    *,
    policy: RetryPolicy,
) -> Iterator[Page]:
    """Page through one operation with boto3's own paginator. Each page is fetched through
    `call` (throttling and 5xx retried); a failed page generator is finished, so a retry
    resumes the paginator from the last NextToken seen. The request recorded with a page is
    the operation's parameters plus the NextToken that led to it."""
    paginator = client.get_paginator(operation)
    token: str | None = None
    pages: Iterator[dict] | None = None

    def next_page() -> dict | None:
        nonlocal pages
        if pages is None:
            config = {"StartingToken": token} if token else {}
            pages = iter(paginator.paginate(**params, PaginationConfig=config))
        try:
            return next(pages)
        except StopIteration:
            return None
        except Exception:
            pages = None
            raise

    next_page.__name__ = operation
    seq = 0
    while True:
        response = call(next_page, endpoint=endpoint, region=region, policy=policy)
        if response is None:
            return
        body = jsonable(response)
        if not isinstance(body.get(list_key), list):
            raise UnexpectedResponse(
                s.PROVIDER, endpoint, f"region {region}: no {list_key!r} list", excerpt=repr(body)
            )
        seq += 1
        request = {**params, **({"NextToken": token} if token else {})}
        yield Page(
            provider=s.PROVIDER,
            endpoint=endpoint,
            fetched_at=utc_now(),
            request={"region": region, **jsonable(request), "page": seq},
            body=body,
        )
        token = body.get("NextToken") or None


@dataclass(frozen=True)
class CapacityBlockTerms:
    """The request-side filters of a Capacity Block search (settings: defaults and why)."""

    types: dict[str, tuple[str, ...]]  # instance type -> regions it is sold in
    hours: tuple[int, ...]
    instances: int
    start: datetime  # naive UTC
    end: datetime

    @classmethod
    def from_context(cls, ctx: FetchContext, now: datetime) -> CapacityBlockTerms:
        days = int(ctx.settings.get("aws_capacity_block_days_ahead", s.CAPACITY_BLOCK_DAYS_AHEAD))
        # an empty mapping turns the search off (an account without the permission)
        types = ctx.settings.get("aws_capacity_block_types", s.CAPACITY_BLOCK_TYPES)
        return cls(
            types={t: tuple(r) for t, r in dict(types).items()},
            hours=tuple(
                int(h) for h in ctx.settings.get("aws_capacity_block_hours", s.CAPACITY_BLOCK_HOURS)
            ),
            instances=int(
                ctx.settings.get("aws_capacity_block_instances", s.CAPACITY_BLOCK_INSTANCE_COUNT)
            ),
            start=now,
            end=now + timedelta(days=days),
        )

    def types_in(self, region: str) -> list[str]:
        return [t for t, regions in self.types.items() if region in regions]


def fetch_capacity_blocks(
    ec2: Any,
    region: str,
    terms: CapacityBlockTerms,
    *,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page]:
    """DescribeCapacityBlockOfferings of one region: one paginated search per instance type
    sold there x duration, for `terms.instances` instances starting in the date window."""
    for instance_type in terms.types_in(region):
        for hours in terms.hours:
            params: dict[str, Any] = {
                "InstanceType": instance_type,
                "InstanceCount": terms.instances,
                "CapacityDurationHours": hours,
                "StartDateRange": terms.start.replace(tzinfo=UTC),
                "EndDateRange": terms.end.replace(tzinfo=UTC),
                "MaxResults": s.CAPACITY_BLOCK_PAGE_SIZE,
            }
            yield from _paginated(
                ec2,
                s.CAPACITY_BLOCK_OPERATION,
                s.CAPACITY_BLOCKS,
                "CapacityBlockOfferings",
                region,
                params,
                policy=policy,
            )


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
        yield from _walk(
            pricing.get_products, s.PRICE_LIST, "PriceList", region, params, policy=policy
        )


# --- public routes ------------------------------------------------------------------------


def fetch_spot_advisor(
    client: httpx.Client, *, url: str = s.SPOT_ADVISOR_URL, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    body = request_json(
        client, "GET", url, provider=s.PROVIDER, endpoint=s.SPOT_ADVISOR, policy=policy
    )
    if not isinstance(body, dict) or not all(
        isinstance(body.get(k), t) for k, t in (("ranges", list), ("spot_advisor", dict))
    ):
        raise UnexpectedResponse(
            s.PROVIDER, s.SPOT_ADVISOR, "no 'ranges' list or 'spot_advisor' object", repr(body)
        )
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.SPOT_ADVISOR,
        fetched_at=utc_now(),
        request={"url": url},
        body=body,
        source_url=url,
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
            time.sleep(_backoff(policy, attempt))
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


def savings_plan_versions(
    client: httpx.Client,
    *,
    base_url: str = s.OFFERS_BASE_URL,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> dict[str, str]:
    """Region -> URL of its current Savings Plans rate file. This index lists `regions`
    as a list of {regionCode, versionUrl} (the EC2 offer index uses an object)."""
    index = request_json(
        client,
        "GET",
        base_url + s.SAVINGS_PLAN_INDEX_PATH,
        provider=s.PROVIDER,
        endpoint=s.SAVINGS_PLANS,
        policy=policy,
    )
    regions = index.get("regions") if isinstance(index, dict) else None
    if not isinstance(regions, list):
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "savings plan region_index.json has no 'regions' list",
            excerpt=repr(index),
        )
    frame = pl.DataFrame(regions, schema={"regionCode": pl.String, "versionUrl": pl.String})
    if frame.select(pl.any_horizontal(pl.all().is_null()).any()).item():
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "a region entry without regionCode or versionUrl",
            excerpt=repr(regions[:3]),
        )
    return dict(zip(frame["regionCode"], (base_url + u for u in frame["versionUrl"]), strict=True))


def accelerated_savings_plans(doc: dict) -> tuple[dict, int, int]:
    """The rates of a Savings Plans region file that we price (settings: EC2, Linux, shared
    tenancy, accelerated types), in the file's own shape; (body, rates in file, kept)."""
    terms = (doc.get("terms") or {}).get("savingsPlan")
    if not isinstance(terms, list) or not isinstance(doc.get("products"), list):
        raise UnexpectedResponse(
            s.PROVIDER,
            s.SAVINGS_PLANS,
            "no 'products' list or 'terms.savingsPlan' list",
            excerpt=repr({k: doc.get(k) for k in ("version", "regionCode")}),
        )
    body = {k: v for k, v in doc.items() if k not in ("products", "terms")}
    if not terms:
        return {**body, "products": [], "terms": {"savingsPlan": []}}, 0, 0
    rates = (
        pl.DataFrame(terms, infer_schema_length=None)
        .with_row_index("_term")
        .explode("rates")
        .drop_nulls("rates")
    )
    rate = pl.col("rates").struct
    usage = rate.field("discountedUsageType").fill_null("")
    kept = rates.filter(
        (rate.field("discountedServiceCode") == "AmazonEC2")
        & (rate.field("discountedOperation") == s.SAVINGS_PLAN_OPERATION)
        & usage.str.contains(s.SAVINGS_PLAN_USAGE)
        & usage.str.replace(s.SAVINGS_PLAN_USAGE, "").str.contains(s.ACCELERATED_TYPE_REGEX)
    )
    grouped = (
        kept.group_by("_term", maintain_order=True)
        .agg(pl.all().exclude("rates").first(), pl.col("rates"))
        .drop("_term")
    )
    skus = set(grouped["sku"].to_list()) if grouped.height else set()
    products = [p for p in doc["products"] if isinstance(p, dict) and p.get("sku") in skus]
    return (
        {**body, "products": products, "terms": {"savingsPlan": grouped.to_dicts()}},
        rates.height,
        kept.height,
    )


def fetch_savings_plans(
    client: httpx.Client, region: str, url: str, *, policy: RetryPolicy = DEFAULT_POLICY
) -> Iterator[Page]:
    """One region's Savings Plans rates for accelerated instances (one page). The file's
    URL names its version (immutable), so the full file can be fetched again."""
    doc = request_json(
        client, "GET", url, provider=s.PROVIDER, endpoint=s.SAVINGS_PLANS, policy=policy
    )
    if not isinstance(doc, dict):
        raise UnexpectedResponse(s.PROVIDER, s.SAVINGS_PLANS, f"{url}: not a JSON object")
    body, total, kept = accelerated_savings_plans(doc)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.SAVINGS_PLANS,
        fetched_at=utc_now(),
        request={
            "region": region,
            "url": url,
            "source_version": doc.get("version"),
            "publication_date": doc.get("publicationDate"),
            "rates_total": total,
            "rates_kept": kept,
            "prefilter": "EC2 Linux shared-tenancy rates of accelerated types "
            "(connectors/aws/README.md)",
        },
        body=body,
        source_url=url,
    )


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


# --- regions, clients, the live walk ------------------------------------------------------


def select_regions(available: list[str], ctx: FetchContext) -> tuple[str, ...]:
    """EC2 regions to walk: botocore's list (or the requested subset of it), minus the
    skip-list and anything shaped like a Local Zone code."""
    skip = set(s.DEFAULT_SKIP_REGIONS)
    skip |= set(ctx.settings.get("aws_skip_regions", ()))
    skip |= {r.strip() for r in os.environ.get(s.SKIP_REGIONS_ENV, "").split(",") if r.strip()}
    wanted = list(ctx.regions) if ctx.regions else list(available)
    unknown = [r for r in wanted if r not in available]
    if unknown:
        log.warning("aws: not EC2 regions (botocore's list), not fetched: %s", ", ".join(unknown))
    return tuple(
        r
        for r in wanted
        if r in available and r not in skip and not re.match(s.LOCAL_ZONE_PATTERN, r)
    )


class BotoClients:
    """boto3 clients from one session (the default credential chain)."""

    def __init__(self, session: Any = None) -> None:
        import boto3
        from botocore.config import Config

        self.session = session or boto3.Session()
        self.config = Config(
            connect_timeout=s.CONNECT_TIMEOUT_S,
            read_timeout=s.READ_TIMEOUT_S,
            retries={"mode": "standard", "max_attempts": 1},
        )

    def has_credentials(self) -> bool:
        credentials = self.session.get_credentials()
        if credentials is None:
            return False
        # keys from a profile or a credential process are masked in every output, as the
        # environment's are
        try:
            frozen = credentials.get_frozen_credentials()
        except Exception:  # a refresh that fails here fails again, with its error, in the walk
            return True
        for value in (frozen.access_key, frozen.secret_key, frozen.token):
            register(value)
        return True

    def available_regions(self) -> list[str]:
        return list(self.session.get_available_regions("ec2"))

    def ec2(self, region: str) -> Any:
        return self.session.client("ec2", region_name=region, config=self.config)

    def pricing(self) -> Any:
        return self.session.client("pricing", region_name=s.PRICING_REGION, config=self.config)


def fetch_public(
    ctx: FetchContext,
    regions: tuple[str, ...],
    client: httpx.Client,
    *,
    advisor_url: str = s.SPOT_ADVISOR_URL,
    offers_base_url: str = s.OFFERS_BASE_URL,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    """The routes that need no credentials: Spot Advisor and the offer CSVs."""
    yield from per_scope(
        s.PROVIDER,
        s.SPOT_ADVISOR,
        [""],
        lambda _: fetch_spot_advisor(client, url=advisor_url, policy=policy),
    )
    try:
        versions = offer_versions(client, base_url=offers_base_url, policy=policy)
    except ConnectorError as exc:
        yield FetchFailure(s.PROVIDER, s.OFFER_CSV, "", exc)
        return
    directory = cache_dir(ctx)
    keep = bool(ctx.settings.get("aws_keep_offer_csv", False))

    def one(region: str) -> Iterator[Page]:
        if region not in versions:
            raise UnexpectedResponse(
                s.PROVIDER, s.OFFER_CSV, f"region {region} is not in region_index.json"
            )
        return fetch_offer_csv(
            client,
            versions[region],
            directory=directory,
            stored_version_at=ctx.watermarks.get((s.OFFER_CSV, region)),
            keep_full=keep,
            policy=policy,
        )

    yield from per_scope(s.PROVIDER, s.OFFER_CSV, regions, one)
    try:
        plans = savings_plan_versions(client, base_url=offers_base_url, policy=policy)
    except ConnectorError as exc:
        yield FetchFailure(s.PROVIDER, s.SAVINGS_PLANS, "", exc)
        return

    def plan(region: str) -> Iterator[Page]:
        if region not in plans:
            raise UnexpectedResponse(
                s.PROVIDER, s.SAVINGS_PLANS, f"region {region} is not in the savings plan index"
            )
        return fetch_savings_plans(client, region, plans[region], policy=policy)

    yield from per_scope(s.PROVIDER, s.SAVINGS_PLANS, regions, plan)


def fetch_credentialed(
    ctx: FetchContext,
    regions: tuple[str, ...],
    clients: Any,
    *,
    now: datetime | None = None,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    """EC2 and Price List walks, per region; a region that fails does not stop the rest."""
    now = now or utc_now()
    for region in regions:
        ec2 = clients.ec2(region)
        yield from per_scope(
            s.PROVIDER,
            s.INSTANCE_TYPES,
            [region],
            lambda r, ec2=ec2: fetch_instance_types(ec2, r, policy=policy),
        )
        yield from per_scope(
            s.PROVIDER,
            s.SPOT_HISTORY,
            [region],
            lambda r, ec2=ec2: fetch_spot_history(
                ec2, r, since=spot_start(ctx, r, now), policy=policy
            ),
        )
    pricing = clients.pricing()
    yield from per_scope(
        s.PROVIDER,
        s.PRICE_LIST,
        regions,
        lambda r: fetch_price_list(pricing, r, policy=policy),
    )
    terms = CapacityBlockTerms.from_context(ctx, now)
    yield from per_scope(
        s.PROVIDER,
        s.CAPACITY_BLOCKS,
        [r for r in regions if terms.types_in(r)],
        lambda r: fetch_capacity_blocks(clients.ec2(r), r, terms, policy=policy),
    )


def fetch_all(
    ctx: FetchContext,
    clients: Any,
    http: httpx.Client,
    *,
    advisor_url: str = s.SPOT_ADVISOR_URL,
    offers_base_url: str = s.OFFERS_BASE_URL,
    now: datetime | None = None,
    policy: RetryPolicy = DEFAULT_POLICY,
) -> Iterator[Page | FetchFailure]:
    regions = select_regions(clients.available_regions(), ctx)
    yield from fetch_public(
        ctx, regions, http, advisor_url=advisor_url, offers_base_url=offers_base_url, policy=policy
    )
    if not clients.has_credentials():
        skipped = MissingCredentials(
            s.PROVIDER,
            ",".join(s.CREDENTIALED_ENDPOINTS),
            "no credentials in the default boto3 chain: skipped EC2 instance types, spot "
            "price history, Capacity Block offerings and the Price List API; the public "
            "offer CSV and Spot Advisor ran",
        )
        log.warning("%s", skipped)
        for endpoint in s.CREDENTIALED_ENDPOINTS:
            yield FetchFailure(s.PROVIDER, endpoint, "", skipped)
        return
    yield from fetch_credentialed(ctx, regions, clients, now=now, policy=policy)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    with make_client(timeout_s=120.0) as http:
        yield from fetch_all(ctx, BotoClients(), http)
