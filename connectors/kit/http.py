"""Shared HTTP plumbing for REST connectors: one httpx client, JSON GET/POST with retry.

Retries 429 and 5xx (and connection errors/timeouts) with exponential backoff and full
jitter, honouring `Retry-After` (seconds or HTTP date, capped); a `Retry-After` that
cannot be read falls back to the backoff. Any other 4xx is not
retried: it raises UnexpectedResponse with an excerpt of the body. Secrets passed in
headers or params never reach a log line or an exception message: URLs are shown
without their query string, and every message and excerpt is redacted
(common.redact) before it is built into an error.

Credentials stay with their host: a redirect to another origin (another host or port, or
from https to http) is followed carrying only the headers that say nothing about the
caller (`SAFE_REDIRECT_HEADERS`: no `Authorization`, `api_key`, `api-key`, `X-APITOKEN`,
... whatever its name), without the query parameters that hold a credential, and a
request with a body (an OAuth2 token request holds its client secret there) is not
re-sent to another origin at all (`CrossOriginRedirect`).

httpx (and what it pulls in: its command-line module brings click, rich and pygments) is
imported when a client is first made, not when this module is: a snapshot replay and the
read commands, which import every connector but fetch nothing, never load it (a test of
tests/connectors says so). Hence the client class is built on first use
(`_host_bound_client`), and `httpx` appears here only in function bodies and annotations.
"""

from __future__ import annotations

import email.utils
import logging
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any

from common.redact import CREDENTIAL_PARAM_NAMES, known_values, redact
from connectors.errors import SourceUnavailable, UnexpectedResponse
from connectors.kit.page import Page, utc_now

if TYPE_CHECKING:
    import httpx

log = logging.getLogger(__name__)

USER_AGENT = "gpu-pricing/0.1 (+https://github.com/gpu-pricing)"


@dataclass(frozen=True)
class RetryPolicy:
    attempts: int = 5
    backoff_s: float = 1.0
    max_backoff_s: float = 30.0
    max_retry_after_s: float = 60.0


DEFAULT_RETRY = RetryPolicy()


# The only request headers a redirect to another origin carries: none of them can hold a
# credential. Every other header (whatever a provider calls its key) stays behind.
SAFE_REDIRECT_HEADERS = frozenset(
    {"user-agent", "accept", "accept-encoding", "accept-language", "connection"}
)
_CREDENTIAL_PARAM = re.compile(rf"(?i)^(?:{CREDENTIAL_PARAM_NAMES})$")


class CrossOriginRedirect(Exception):
    """A redirect to another origin of a request that carries a body: not followed."""


def same_origin(a: httpx.URL, b: httpx.URL) -> bool:
    """One scheme, host and port (an http -> https upgrade of the same host counts too)."""
    upgrade = a.scheme == "http" and b.scheme == "https" and b.port in (None, 443)
    return a.host == b.host and (
        (a.scheme == b.scheme and a.port == b.port) or (upgrade and a.port in (None, 80))
    )


def credential_param(name: str, value: str, known: frozenset[str]) -> bool:
    """A query parameter that holds a credential: named like one, or holding a value the
    process knows as a credential."""
    return bool(_CREDENTIAL_PARAM.match(name)) or (bool(value) and value in known)


@cache
def _host_bound_client() -> type[httpx.Client]:
    """HostBoundClient: an httpx client whose credentials never follow a redirect to
    another origin (built on first use, so that importing this module loads no httpx)."""
    import httpx

    class HostBoundClient(httpx.Client):
        def _build_redirect_request(self, request: httpx.Request, response: httpx.Response):
            nxt = super()._build_redirect_request(request, response)
            if same_origin(request.url, nxt.url):
                return nxt
            if nxt.method not in ("GET", "HEAD") or nxt.headers.get("Content-Length", "0") != "0":
                raise CrossOriginRedirect(
                    f"{request.method} {_redacted(request.url)} was redirected to another "
                    f"host ({_redacted(nxt.url)}): not followed, its body may hold credentials"
                )
            known = known_values()
            params = [
                (k, v) for k, v in nxt.url.params.multi_items() if not credential_param(k, v, known)
            ]
            headers = {k: v for k, v in nxt.headers.items() if k.lower() in SAFE_REDIRECT_HEADERS}
            return httpx.Request(
                nxt.method,
                nxt.url.copy_with(params=params or None),
                headers=headers,
                extensions=nxt.extensions,
            )

    return HostBoundClient


def bind_session_to_host(session: Any) -> Any:
    """The same rule for a `requests.Session` (an SDK's REST transport, such as Google's):
    a redirect to another origin keeps only SAFE_REDIRECT_HEADERS and drops the query
    parameters that hold a credential (requests itself strips only `Authorization`)."""
    import httpx

    rebuild_auth = session.rebuild_auth

    def rebuild(prepared: Any, response: Any) -> None:
        rebuild_auth(prepared, response)
        if same_origin(httpx.URL(response.request.url), httpx.URL(prepared.url)):
            return
        if prepared.body:
            raise CrossOriginRedirect(
                f"{prepared.method} {_redacted(response.request.url)} was redirected to "
                f"another host ({_redacted(prepared.url)}): not followed, its body may hold "
                "credentials"
            )
        for name in [n for n in prepared.headers if n.lower() not in SAFE_REDIRECT_HEADERS]:
            del prepared.headers[name]
        known = known_values()
        url = httpx.URL(prepared.url)
        params = [(k, v) for k, v in url.params.multi_items() if not credential_param(k, v, known)]
        prepared.url = str(url.copy_with(params=params or None))

    session.rebuild_auth = rebuild
    return session


class _QuerylessUrls(logging.Filter):
    """httpx logs every request's full URL at INFO (shown with --debug): the URL is logged
    without its query string, which may carry a key."""

    def filter(self, record: logging.LogRecord) -> bool:
        import httpx  # loaded already: only httpx logs to its logger

        if isinstance(record.args, tuple):
            record.args = tuple(
                _redacted(a) if isinstance(a, httpx.URL) else a for a in record.args
            )
        return True


logging.getLogger("httpx").addFilter(_QuerylessUrls())


def make_client(timeout_s: float = 30.0, **kwargs: Any) -> httpx.Client:
    """The one HTTP client of the REST connectors: follows redirects, keeps credentials
    with their host (`_host_bound_client`)."""
    return _host_bound_client()(
        timeout=timeout_s, headers={"User-Agent": USER_AGENT}, follow_redirects=True, **kwargs
    )


def _retry_after(response: httpx.Response, policy: RetryPolicy) -> float | None:
    """The wait a `Retry-After` header asks for (delay-seconds or an HTTP date), capped;
    None when there is none or it cannot be read, and the caller backs off exponentially
    (a header such as "soon" must not stop the retries)."""
    value = response.headers.get("Retry-After", "").strip()
    if not value:
        return None
    try:
        seconds = float(value)
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError, OverflowError):
            log.warning("unreadable Retry-After %r: backing off exponentially", value[:40])
            return None
        if parsed.tzinfo is None:  # an HTTP date is GMT; "-0000" parses without a zone
            parsed = parsed.replace(tzinfo=UTC)
        seconds = (parsed - datetime.now(UTC)).total_seconds()
    if not math.isfinite(seconds):
        return None
    return max(0.0, min(seconds, policy.max_retry_after_s))


def _redacted(url: httpx.URL | str) -> str:
    """The URL without its query string (query strings may carry API keys), redacted."""
    import httpx

    try:
        return redact(str(httpx.URL(str(url)).copy_with(query=None)))
    except (httpx.InvalidURL, TypeError, ValueError):
        return redact(str(url).split("?")[0])


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
    import httpx

    last: Exception | None = None
    for attempt in range(1, policy.attempts + 1):
        wait: float | None = None
        try:
            response = client.request(method, url, **kwargs)
        except CrossOriginRedirect as exc:
            raise UnexpectedResponse(provider, endpoint, redact(str(exc))) from None
        except (httpx.TimeoutException, httpx.TransportError) as exc:
            last = SourceUnavailable(
                provider, endpoint, f"{type(exc).__name__} calling {_redacted(url)}"
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


def get_page(
    client: httpx.Client,
    url: str,
    *,
    provider: str,
    endpoint: str,
    headers: dict[str, str],
    check: Callable[[Any], None] | None = None,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Page:
    """One GET of a price endpoint that answers with a single JSON document, as one Page
    (`check` raises UnexpectedResponse on a body that is not the expected shape)."""
    body = request_json(
        client, "GET", url, headers=headers, provider=provider, endpoint=endpoint, policy=policy
    )
    if check is not None:
        check(body)
    return Page(
        provider=provider,
        endpoint=endpoint,
        fetched_at=utc_now(),
        request={"url": url},
        body=body,
        source_url=url,
    )
