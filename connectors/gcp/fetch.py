"""GCP fetch: network only, bodies as the REST API returns them.

- Endpoint: Cloud Billing Catalog `services.skus.list` for Compute Engine
  (`CloudCatalogClient.list_skus(parent="services/6F81-5844-456A")`, google-cloud-billing,
  REST transport). No region filter exists: one walk covers the whole catalog, so the load
  scope is the service, and a walk that fails half way leaves yesterday's load current.
- Paging: the pager's `.pages`, `pageSize` 5000, until `nextPageToken` is empty. Each page
  (a ListSkusResponse) is serialised back to the REST JSON (`{"skus": [...],
  "nextPageToken": ...}`, camelCase, int64 as strings, enums as names) with
  `ListSkusResponse.to_json`, which is what the snapshot format stores.
- Auth: an API key from env GOOGLE_API_KEY (sent as the x-goog-api-key header, never in a
  URL), else Application Default Credentials (`google.auth.default()`), else
  MissingCredentials. The key is never logged, stored or put in a page.
- Errors: 429 and 5xx (and connection errors) retried with exponential backoff by
  google-api-core's Retry (which does not read Retry-After), then SourceUnavailable;
  401 or an invalid API key -> MissingCredentials (credentials present but unusable:
  skipped, as for Azure); other 4xx (403: API disabled) and a body that is not a
  ListSkusResponse -> UnexpectedResponse.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from typing import Any

from common.redact import redact
from connectors.errors import MissingCredentials, SourceUnavailable, UnexpectedResponse
from connectors.gcp import settings as s
from connectors.kit.http import CrossOriginRedirect, bind_session_to_host
from connectors.kit.page import FetchContext, FetchFailure, Page, per_scope, utc_now

log = logging.getLogger(__name__)


def default_retry(initial: float = 1.0, maximum: float = 30.0, timeout: float = 300.0) -> Any:
    """Retry 429, 5xx and connection failures with exponential backoff and jitter."""
    import requests
    from google.api_core import exceptions as gexc
    from google.api_core import retry

    return retry.Retry(
        predicate=retry.if_exception_type(
            gexc.TooManyRequests,
            gexc.InternalServerError,
            gexc.BadGateway,
            gexc.ServiceUnavailable,
            gexc.GatewayTimeout,
            requests.exceptions.ConnectionError,
            requests.exceptions.Timeout,
        ),
        initial=initial,
        maximum=maximum,
        multiplier=2.0,
        timeout=timeout,
    )


def make_client(
    *,
    api_key: str | None = None,
    credentials: Any = None,
    api_endpoint: str | None = None,
) -> Any:
    """A CloudCatalogClient on the REST transport (so what we store is the REST JSON)."""
    from google.api_core.client_options import ClientOptions
    from google.cloud import billing_v1

    options = ClientOptions(api_endpoint=api_endpoint, api_key=api_key)
    client = billing_v1.CloudCatalogClient(
        credentials=credentials, transport="rest", client_options=options
    )
    session = client._transport._session
    # the key (x-goog-api-key) or token never follows a redirect to another host
    bind_session_to_host(session)
    session.hooks["response"].append(_google_shaped_error)
    return client


def _google_shaped_error(response: Any, *args: Any, **kwargs: Any) -> Any:
    """google-api-core reads an error body as `{"error": {"message": ...}}`; another body
    (a gateway's HTML, a JSON string, `{"error": "text"}`) makes it raise AttributeError and
    lose the status. Such a body is rewritten to that shape, its start as the message, so
    the status decides (5xx retried, 4xx one line naming it)."""
    if response.status_code < 400:
        return response
    try:
        payload = response.json()
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("error"), dict):
        return response
    error = {"code": response.status_code, "message": response.text[:300], "status": ""}
    response._content = json.dumps({"error": error}).encode()
    response.headers["Content-Type"] = "application/json"
    return response


def client_from_env(api_endpoint: str | None = None) -> Any:
    """API key from GOOGLE_API_KEY, else ADC, else MissingCredentials."""
    api_key = os.environ.get(s.API_KEY_ENV)
    if api_key:
        return make_client(api_key=api_key, api_endpoint=api_endpoint)
    import google.auth
    from google.auth.exceptions import DefaultCredentialsError

    try:
        credentials, _ = google.auth.default(scopes=list(s.SCOPES))
    except DefaultCredentialsError as exc:
        raise MissingCredentials(
            s.PROVIDER,
            s.ENDPOINT,
            f"no {s.API_KEY_ENV} and no Application Default Credentials "
            "(gcloud auth application-default login, GOOGLE_APPLICATION_CREDENTIALS "
            "or a metadata server)",
        ) from exc
    return make_client(credentials=credentials, api_endpoint=api_endpoint)


def _redacted(text: str) -> str:
    """An error text without credentials (the API key, a `key=` query parameter ...)."""
    return redact(text)


def _check_page(body: dict[str, Any], page_no: int) -> None:
    """Schema drift guard. The client drops unknown fields and fills missing ones with
    defaults, so a renamed field shows up as an empty value: every SKU must name itself
    and its usage type, and a page of SKUs none of which has a price is drift too (one
    SKU without a price is that SKU's problem: parse rejects it with a reason)."""
    skus = body.get("skus", [])
    for n, sku in enumerate(skus):
        missing = [k for k in ("skuId", "description") if not sku.get(k)]
        if not sku.get("category", {}).get("usageType"):
            missing.append("category.usageType")
        if missing:
            raise UnexpectedResponse(
                s.PROVIDER,
                s.ENDPOINT,
                f"page {page_no}, SKU {n}: lacks {missing}",
                excerpt=json.dumps(sku)[:300],
            )
    if skus and not any(sku.get("pricingInfo") for sku in skus):
        raise UnexpectedResponse(
            s.PROVIDER,
            s.ENDPOINT,
            f"page {page_no}: none of its {len(skus)} SKUs has pricingInfo",
            excerpt=json.dumps(skus[0])[:300],
        )


def _translate(exc: Exception, parent: str) -> Exception:
    """A google-api-core / protobuf / requests error as a connectors.errors type."""
    import requests
    from google.api_core import exceptions as gexc
    from google.protobuf import json_format

    where = f"listing SKUs of {parent}"
    if isinstance(exc, gexc.RetryError):
        cause = exc.cause or exc.__cause__
        return SourceUnavailable(
            s.PROVIDER, s.ENDPOINT, _redacted(f"retries exhausted {where}; last error: {cause}")
        )
    if isinstance(exc, gexc.GoogleAPICallError):
        status = exc.code or 0
        reason = exc.reason or getattr(exc.grpc_status_code, "name", "") or ""
        head = f"HTTP {status} {reason} {where}".replace("  ", " ")
        if status == 429 or status >= 500:
            return SourceUnavailable(s.PROVIDER, s.ENDPOINT, head)
        if status == 401 or reason == "API_KEY_INVALID":
            return MissingCredentials(s.PROVIDER, s.ENDPOINT, f"credentials rejected: {head}")
        return UnexpectedResponse(s.PROVIDER, s.ENDPOINT, head, excerpt=_redacted(exc.message))
    if isinstance(exc, json_format.ParseError):
        return UnexpectedResponse(
            s.PROVIDER,
            s.ENDPOINT,
            f"response body is not a ListSkusResponse {where}",
            excerpt=str(exc),
        )
    if isinstance(exc, requests.exceptions.RequestException):
        return SourceUnavailable(s.PROVIDER, s.ENDPOINT, _redacted(f"{type(exc).__name__} {where}"))
    return exc


def fetch_skus(
    client: Any,
    *,
    parent: str = s.SERVICE,
    page_size: int = s.PAGE_SIZE,
    retry: Any = None,
    timeout: float = 60.0,
) -> Iterator[Page]:
    """Every page of the service's SKU list, as REST JSON."""
    import google.auth.exceptions
    import requests
    from google.api_core import exceptions as gexc
    from google.cloud import billing_v1
    from google.protobuf import json_format

    endpoint = client.api_endpoint
    base = endpoint if "://" in endpoint else f"https://{endpoint}"
    source_url = f"{base}/v1/{parent}/skus"
    request = billing_v1.ListSkusRequest(
        parent=parent, page_size=page_size, currency_code=s.CURRENCY
    )
    token = ""
    tokens: set[str] = set()
    page_no = 0
    skus_seen = 0
    try:
        pager = client.list_skus(request=request, retry=retry or default_retry(), timeout=timeout)
        for response in pager.pages:
            page_no += 1
            body = json.loads(
                type(response).to_json(response, use_integers_for_enums=False, indent=None)
            )
            _check_page(body, page_no)
            skus_seen += len(body.get("skus", []))
            yield Page(
                provider=s.PROVIDER,
                endpoint=s.ENDPOINT,
                fetched_at=utc_now(),
                request={
                    "scope": parent,
                    "parent": parent,
                    "pageSize": page_size,
                    "currencyCode": s.CURRENCY,
                    "pageToken": token,
                    "page": page_no,
                },
                body=body,
                source_url=source_url,
            )
            token = body.get("nextPageToken", "")
            if token and token in tokens:
                # the pager would ask for the same pages again, forever
                raise UnexpectedResponse(
                    s.PROVIDER,
                    s.ENDPOINT,
                    f"page {page_no} repeats an earlier nextPageToken {token[:80]!r} "
                    "(a paging cycle)",
                )
            tokens.add(token)
    except CrossOriginRedirect as exc:
        raise UnexpectedResponse(s.PROVIDER, s.ENDPOINT, _redacted(str(exc))) from None
    except google.auth.exceptions.RefreshError as exc:
        # revoked or expired ADC credentials: the provider is skipped, as with none at all
        raise MissingCredentials(
            s.PROVIDER,
            s.ENDPOINT,
            f"Google credentials could not be refreshed ({type(exc).__name__})",
        ) from exc
    except google.auth.exceptions.TransportError as exc:
        raise SourceUnavailable(
            s.PROVIDER, s.ENDPOINT, f"Google token endpoint unreachable ({type(exc).__name__})"
        ) from exc
    except (
        gexc.GoogleAPIError,
        json_format.ParseError,
        requests.exceptions.RequestException,
    ) as exc:
        raise _translate(exc, parent) from exc
    if skus_seen == 0:
        # an empty Compute Engine catalog is not a price list, it is a broken answer
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, f"{parent} returned no SKUs in {page_no} page(s)"
        )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    """The whole Compute Engine catalog (ctx.regions does not apply: the API has no
    region filter, and parse publishes every region a SKU lists)."""
    try:
        client = client_from_env()
    except MissingCredentials as exc:
        log.info("%s", exc)
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, s.SERVICE, exc)
        return
    yield from per_scope(
        s.PROVIDER, s.ENDPOINT, (s.SERVICE,), lambda p: fetch_skus(client, parent=p)
    )
