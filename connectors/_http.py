"""Shared HTTP plumbing for REST connectors: one httpx client, JSON GET/POST with retry.

Retries 429 and 5xx (and connection errors/timeouts) with exponential backoff and full
jitter, honouring `Retry-After` (seconds or HTTP date, capped). Any other 4xx is not
retried: it raises UnexpectedResponse with an excerpt of the body. Secrets passed in
headers or params never reach a log line or an exception message.
"""

from __future__ import annotations

import email.utils
import logging
import random
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import httpx

from connectors.errors import SourceUnavailable, UnexpectedResponse

log = logging.getLogger(__name__)

USER_AGENT = "gpu-pricing/0.1 (+https://github.com/gpu-pricing)"


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_retry_after_s: float = 60.0


DEFAULT_RETRY = RetryPolicy()


def make_client(timeout_s: float = 30.0, **kwargs: Any) -> httpx.Client:
    return httpx.Client(
        timeout=timeout_s, headers={"User-Agent": USER_AGENT}, follow_redirects=True, **kwargs
    )


def _retry_after(response: httpx.Response, policy: RetryPolicy) -> float | None:
    value = response.headers.get("Retry-After")
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value)
        if parsed is None:
            return None
        seconds = (parsed - datetime.now(UTC)).total_seconds()
    return max(0.0, min(seconds, policy.max_retry_after_s))


def _redacted(url: httpx.URL) -> str:
    """The URL without its query string: query strings may carry API keys."""
    return str(url.copy_with(query=None))


def request_json(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    provider: str,
    endpoint: str,
    policy: RetryPolicy = DEFAULT_RETRY,
    **kwargs: Any,
) -> Any:
    """Send a request and return the decoded JSON body, retrying what is retryable."""
    last: Exception | None = None
    for attempt in range(1, policy.attempts + 1):
        wait: float | None = None
        try:
            response = client.request(method, url, **kwargs)
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            last = SourceUnavailable(
                provider, endpoint, f"{type(exc).__name__} calling {url.split('?')[0]}"
            )
        else:
            if response.status_code == 429 or response.status_code >= 500:
                wait = _retry_after(response, policy)
                last = SourceUnavailable(
                    provider,
                    endpoint,
                    f"HTTP {response.status_code} from {_redacted(response.request.url)}",
                )
            elif response.status_code >= 400:
                raise UnexpectedResponse(
                    provider,
                    endpoint,
                    f"HTTP {response.status_code} from {_redacted(response.request.url)}",
                    excerpt=response.text,
                )
            else:
                try:
                    return response.json()
                except ValueError as exc:
                    raise UnexpectedResponse(
                        provider, endpoint, "response body is not JSON", excerpt=response.text
                    ) from exc
        if attempt == policy.attempts:
            break
        if wait is None:
            wait = random.uniform(
                0, min(policy.max_backoff_s, policy.backoff_s * 2 ** (attempt - 1))
            )
        log.warning("%s (attempt %d/%d), retrying in %.1fs", last, attempt, policy.attempts, wait)
        time.sleep(wait)
    assert last is not None
    raise last
