"""Azure fetch: network only, bodies exactly as received.

- Retail Prices API (`GET prices.azure.com/api/retail/prices`, no auth): one walk per
  region following `NextPageLink` until it is null/absent or `Items` is empty; a link back
  to a page already requested, or more than RETAIL_MAX_PAGES pages, fails the region; 429
  and 5xx retried with backoff honouring Retry-After (connectors.kit.http).
- Resource SKUs (azure-mgmt-compute `resource_skus.list`, ARM, DefaultAzureCredential plus
  AZURE_SUBSCRIPTION_ID): vCPUs, memory and GPU count per VM size, serialised to the ARM
  REST JSON (`value`, `nextLink`) page by page. Without credentials: MissingCredentials.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Any

from connectors.azure import settings as s
from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.kit.checks import require_items
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, per_scope, utc_now

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

RETAIL = "retail_prices"
SKUS = "resource_skus"
_ITEM_KEYS = ("retailPrice", "armSkuName", "armRegionName", "type", "unitOfMeasure", "currencyCode")


def fetch_retail_prices(
    client: httpx.Client,
    region: str,
    *,
    base_url: str = s.RETAIL_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
    max_pages: int = s.RETAIL_MAX_PAGES,
) -> Iterator[Page]:
    """Walk one region's pages. A NextPageLink that leads back to a page already requested
    (itself, or a longer cycle), or a walk longer than `max_pages`, raises
    UnexpectedResponse naming the link: the region fails, the others go on."""
    params: dict[str, str] | None = {
        "api-version": s.RETAIL_API_VERSION,
        "$filter": s.RETAIL_FILTER.format(region=region),
    }
    url: str | None = base_url
    seq = 0
    seen: dict[str, int] = {}  # request URL -> page number, to stop a paging cycle
    while url:
        full = str(client.build_request("GET", url, params=params).url)
        if full in seen:
            raise UnexpectedResponse(
                s.PROVIDER,
                RETAIL,
                f"region {region}: NextPageLink of page {seq} is {url}, already requested for "
                f"page {seen[full]} (a paging cycle)",
            )
        if seq >= max_pages:
            raise UnexpectedResponse(
                s.PROVIDER,
                RETAIL,
                f"region {region}: still a NextPageLink after {seq} pages ({url}); a walk is "
                f"at most {max_pages} pages",
            )
        seen[full] = seq + 1
        body = request_json(
            client, "GET", url, params=params, provider=s.PROVIDER, endpoint=RETAIL, policy=policy
        )
        require_items(s.PROVIDER, RETAIL, body, "Items", _ITEM_KEYS, where=f"region {region}")
        seq += 1
        yield Page(
            provider=s.PROVIDER,
            endpoint=RETAIL,
            fetched_at=utc_now(),
            request={"region": region, "url": url, "params": params, "page": seq},
            body=body,
            source_url=url,
        )
        if not body["Items"]:
            break
        url, params = body.get("NextPageLink"), None


def fetch_resource_skus(compute_client: Any, region: str, **call_kwargs: Any) -> Iterator[Page]:
    """Pages of ResourceSku objects for one location, as ARM REST JSON."""
    from azure.core.exceptions import AzureError, ClientAuthenticationError, HttpResponseError

    pager = compute_client.resource_skus.list(
        filter=f"location eq '{region}'", **call_kwargs
    ).by_page()
    seq = 0
    try:
        for page in pager:
            # the SDK model is a mapping over the REST JSON (camelCase keys), kept as is
            items = [sku.as_dict() for sku in page]
            seq += 1
            yield Page(
                provider=s.PROVIDER,
                endpoint=SKUS,
                fetched_at=utc_now(),
                request={"region": region, "filter": f"location eq '{region}'", "page": seq},
                body={"value": items, "nextLink": pager.continuation_token},
            )
    except ClientAuthenticationError as exc:
        raise MissingCredentials(
            s.PROVIDER, SKUS, f"Azure credentials rejected ({type(exc).__name__})"
        ) from exc
    except HttpResponseError as exc:
        status = exc.status_code or 0
        if status == 429 or status >= 500:
            raise SourceUnavailable(
                s.PROVIDER, SKUS, f"HTTP {status} listing resource SKUs in {region}"
            ) from exc
        raise UnexpectedResponse(
            s.PROVIDER,
            SKUS,
            f"HTTP {status} listing resource SKUs in {region}",
            excerpt=str(exc.message),
        ) from exc
    except AzureError as exc:
        raise SourceUnavailable(
            s.PROVIDER, SKUS, f"{type(exc).__name__} listing resource SKUs in {region}"
        ) from exc


def compute_client_from_env() -> Any:
    """ComputeManagementClient from DefaultAzureCredential, or MissingCredentials."""
    subscription = os.environ.get(s.SUBSCRIPTION_ENV)
    if not subscription:
        raise MissingCredentials(
            s.PROVIDER,
            SKUS,
            f"{s.SUBSCRIPTION_ENV} is not set: VM specs come from the bundled size table",
        )
    from azure.core.exceptions import ClientAuthenticationError
    from azure.identity import CredentialUnavailableError, DefaultAzureCredential
    from azure.mgmt.compute import ComputeManagementClient

    credential = DefaultAzureCredential()
    try:
        credential.get_token("https://management.azure.com/.default")
    except (CredentialUnavailableError, ClientAuthenticationError) as exc:
        raise MissingCredentials(
            s.PROVIDER, SKUS, "DefaultAzureCredential found no usable credential"
        ) from exc
    return ComputeManagementClient(credential, subscription)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    regions: Iterable[str] = ctx.regions or s.DEFAULT_REGIONS
    regions = tuple(regions)
    base_url = ctx.settings.get("retail_url", s.RETAIL_URL)
    with make_client() as client:
        yield from per_scope(
            s.PROVIDER, RETAIL, regions, lambda r: fetch_retail_prices(client, r, base_url=base_url)
        )
    try:
        compute = compute_client_from_env()
    except MissingCredentials as exc:
        log.info("%s", exc)
        yield FetchFailure(s.PROVIDER, SKUS, "", exc)
        return
    yield from per_scope(s.PROVIDER, SKUS, regions, lambda r: fetch_resource_skus(compute, r))
