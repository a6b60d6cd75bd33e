"""RunPod fetch: the GraphQL `gpuTypes` query, network only, body as received.

- Endpoint: `POST https://api.runpod.io/graphql` with `{"query": ...}`.
- Auth: optional. Env `RUNPOD_API_KEY` is sent as a Bearer header when set; without it
  the query runs keyless (as gpuhunt does), so a missing key is not a skip.
- Paging: none; one response `{"data": {"gpuTypes": [...]}}`.
- Quirk: GraphQL errors come back with HTTP 200 and `{"errors": [{"message": ...}]}`,
  which is raised as UnexpectedResponse (not retried). 429/5xx are retried (_http).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import Any

import httpx

from common.errors import PricingError
from connectors.errors import UnexpectedResponse
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.runpod import settings as s


def _check(body: Any) -> None:
    if isinstance(body, dict) and body.get("errors"):
        messages = [
            e.get("message", "?") if isinstance(e, dict) else str(e) for e in body["errors"]
        ]
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, f"GraphQL errors: {'; '.join(messages)}", excerpt=repr(body)
        )
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("gpuTypes"), list):
        raise UnexpectedResponse(
            s.PROVIDER, s.ENDPOINT, "response has no data.gpuTypes list", excerpt=repr(body)
        )
    for gpu in data["gpuTypes"]:
        if not isinstance(gpu, dict) or "id" not in gpu:
            raise UnexpectedResponse(
                s.PROVIDER, s.ENDPOINT, "a gpuTypes entry has no 'id'", excerpt=repr(gpu)
            )


def fetch_gpu_types(
    client: httpx.Client,
    api_key: str | None = None,
    *,
    url: str = s.GRAPHQL_URL,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page]:
    request = {"query": s.GPU_TYPES_QUERY}
    headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
    body = request_json(
        client,
        "POST",
        url,
        json=request,
        headers=headers,
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        policy=policy,
    )
    _check(body)
    yield Page(
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        fetched_at=utc_now(),
        request={"url": url, **request},
        body=body,
        source_url=url,
    )


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    key = os.environ.get(s.API_KEY_ENV, "").strip() or None
    try:
        with make_client() as client:
            yield from fetch_gpu_types(
                client, key, url=ctx.settings.get("runpod_url", s.GRAPHQL_URL)
            )
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
