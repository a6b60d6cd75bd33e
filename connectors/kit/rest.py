"""A declarative JSON endpoint: what most REST price sources are, said once, and the
ceremony around it owned here (the client, the credential from the environment, the
shape check, paging, `except PricingError -> FetchFailure`).

    PLANS = JsonEndpoint(
        provider="seeweb", endpoint="plans", url="https://api.seeweb.it/ecs/v2/plans",
        credential=Credential(env=("SEEWEB_API_TOKEN", "SEEWEB_API_KEY"), header="X-APITOKEN"),
        items="plans", required=("name", "hourly_price"),
    )
    fetch_live = PLANS.fetch_live

In the spirit of dlt's `rest_api` (a paginator per source: `JSONResponsePaginator
(next_url_path=...)`, `PageNumberPaginator`, `JSONResponseCursorPaginator`) and Meltano's
`RESTStream` (`records_jsonpath`, `next_page_token_jsonpath`):

- `items`: where the records are (a key, a path of keys, or None for a bare array), and
  `required`: the keys the first record must have (the fetch-time drift guard; the
  per-page guard of stored pages is connectors.kit.decode's);
- `credential`: the environment variables it is read from (the first set wins; none set:
  MissingCredentials, the provider is skipped), sent in a header (with a scheme such as
  "Bearer ") or a query parameter; a redirect to another host never carries it
  (connectors.kit.http);
- `paging`: `NextLink` (the body names the next URL), `Cursor` (the body names a token
  sent back as a query parameter), `PageNumber` (a page parameter counted up until a
  page holds no records); a walk that repeats a request or passes `max_pages` fails.

An SDK source (AWS, GCP, Azure's SDK, Nebius' gRPC) keeps its own fetch: the escape hatch
is simply a `fetch_live` of its own, as the `Connector` contract takes any.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

from common.errors import PricingError
from connectors.errors import UnexpectedResponse
from connectors.kit.checks import env_credential, require_items, require_list
from connectors.kit.connector import SNAPSHOT, Connector, offers_only
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now


@dataclass(frozen=True)
class Credential:
    """A credential from the environment, sent in `header` (after `scheme`) or as the
    query parameter `query`."""

    env: tuple[str, ...]
    header: str | None = None
    scheme: str = ""
    query: str | None = None
    need: str = ""  # why it is needed, added to the MissingCredentials message

    def __post_init__(self) -> None:
        if (self.header is None) == (self.query is None):
            raise ValueError("a credential is sent in a header or a query parameter")

    def from_env(self, provider: str, endpoint: str) -> str:
        return env_credential(provider, endpoint, self.env, self.need)

    def headers(self, value: str) -> dict[str, str]:
        return {self.header: f"{self.scheme}{value}"} if self.header else {}

    def params(self, value: str) -> dict[str, str]:
        return {self.query: value} if self.query else {}


@dataclass(frozen=True)
class NextLink:
    """The body names the next page's full URL at `path` (null, empty or absent: done)."""

    path: tuple[str, ...]


@dataclass(frozen=True)
class Cursor:
    """The body names a token at `path`, sent back as the query parameter `param`."""

    path: tuple[str, ...]
    param: str


@dataclass(frozen=True)
class PageNumber:
    """Pages counted from `start` in the query parameter `param`, until one holds no
    records (`size_param`/`size`: the page size asked for, when the API takes one)."""

    param: str
    start: int = 1
    size_param: str | None = None
    size: int | None = None


Paging = NextLink | Cursor | PageNumber


def dig(body: Any, path: tuple[str, ...]) -> Any:
    """The value at `path` in a JSON document; None when any step is missing."""
    for key in path:
        if not isinstance(body, dict):
            return None
        body = body.get(key)
    return body


@dataclass(frozen=True)
class JsonEndpoint:
    provider: str
    endpoint: str
    # the URL, or a function returning it (read when fetching: a settings module's value
    # that a test or a deployment may replace)
    url: str | Callable[[], str]
    items: str | tuple[str, ...] | None = None  # None: the body is the array of records
    required: tuple[str, ...] = ()
    credential: Credential | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)
    paging: Paging | None = None
    max_pages: int = 1000
    what: str = "item"  # how a record is named in an error
    # escape hatch: a body whose records are not a list (Lambda's object of instance
    # types) is checked by this instead (raising UnexpectedResponse); no page-number paging
    check: Callable[[Any], None] | None = None
    url_setting: str | None = None  # the FetchContext.settings key overriding `url`

    def __post_init__(self) -> None:
        if self.check is not None and isinstance(self.paging, PageNumber):
            raise ValueError(f"{self.provider}/{self.endpoint}: a custom check cannot count pages")

    @property
    def item_path(self) -> tuple[str, ...]:
        return () if self.items is None else (
            (self.items,) if isinstance(self.items, str) else self.items
        )

    def records(self, body: Any, where: str = "") -> list:
        """The records of one body, checked (connectors.kit.checks: the list is there,
        and its first record has every required key; UnexpectedResponse otherwise)."""
        path = self.item_path
        if not path:
            return require_list(self.provider, self.endpoint, body, self.required, what=self.what)
        parent = dig(body, path[:-1]) if len(path) > 1 else body
        return require_items(
            self.provider, self.endpoint, parent, path[-1], self.required, where=where
        )

    @property
    def default_url(self) -> str:
        return self.url() if callable(self.url) else self.url

    def credential_from_env(self) -> str:
        assert self.credential is not None
        return self.credential.from_env(self.provider, self.endpoint)

    def pages(
        self,
        client: httpx.Client,
        credential: str | None = None,
        *,
        url: str | None = None,
        policy: RetryPolicy = DEFAULT_RETRY,
    ) -> Iterator[Page]:
        """Every page of the endpoint, each checked, as received."""
        url = url or self.default_url
        headers = dict(self.headers)
        params = dict(self.params)
        if self.credential is not None and credential is not None:
            headers |= self.credential.headers(credential)
            params |= self.credential.params(credential)
        paging = self.paging
        if isinstance(paging, PageNumber):
            params[paging.param] = str(paging.start)
            if paging.size_param and paging.size:
                params[paging.size_param] = str(paging.size)
        seen: set[str] = set()
        n = 0
        next_url: str | None = url
        while next_url:
            full = str(client.build_request("GET", next_url, params=params or None).url)
            if full in seen or n >= self.max_pages:
                why = "repeats an earlier request (a paging cycle)" if full in seen else (
                    f"passes {self.max_pages} pages"
                )
                raise UnexpectedResponse(self.provider, self.endpoint, f"page {n + 1} {why}")
            seen.add(full)
            body = request_json(
                client,
                "GET",
                next_url,
                headers=headers or None,
                params=params or None,
                provider=self.provider,
                endpoint=self.endpoint,
                policy=policy,
            )
            n += 1
            if self.check is not None:
                self.check(body)
                records: list = []
            else:
                records = self.records(body, where=f"page {n}" if paging else "")
            yield Page(
                provider=self.provider,
                endpoint=self.endpoint,
                fetched_at=utc_now(),
                request=self._request(next_url, params, n),
                body=body,
                source_url=next_url,
            )
            next_url, params = self._next(body, records, next_url, params)

    def _request(self, url: str, params: dict[str, str], n: int) -> dict[str, Any]:
        """What a page records as its request: the URL, and when paged its page number
        and the query it was sent (never the credential)."""
        if self.paging is None and not self.params:
            return {"url": url}
        secret = self.credential.query if self.credential else None
        query = {k: v for k, v in params.items() if k != secret}
        return {"url": url, "params": query, "page": n}

    def _next(
        self, body: Any, records: list, url: str, params: dict[str, str]
    ) -> tuple[str | None, dict[str, str]]:
        paging = self.paging
        if isinstance(paging, NextLink):
            link = dig(body, paging.path)
            # the link carries its own query: the first request's params are not re-sent
            secret = self.credential.query if self.credential else None
            return (link or None), {k: v for k, v in params.items() if k == secret}
        if isinstance(paging, Cursor):
            token = dig(body, paging.path)
            return (url if token else None), {**params, paging.param: str(token)}
        if isinstance(paging, PageNumber):
            if not records:
                return None, params
            return url, {**params, paging.param: str(int(params[paging.param]) + 1)}
        return None, params

    def fetch_live(self, ctx: FetchContext) -> Iterator[Page | FetchFailure]:
        """The live fetch: the credential from the environment, one client, every page;
        a failure (or no credential) is the endpoint's FetchFailure, not an exception."""
        try:
            credential = self.credential_from_env() if self.credential else None
            url = ctx.settings.get(self.url_setting or f"{self.provider}_url", self.default_url)
            with make_client() as client:
                yield from self.pages(client, credential, url=url)
        except PricingError as exc:
            yield FetchFailure(self.provider, self.endpoint, "", exc)


def rest_connector(
    *endpoints: JsonEndpoint,
    parse: Callable[[Any], Any],
    credentials: tuple[str, ...] = (),
) -> Connector:
    """The connector of a source made of JSON endpoints, each a SNAPSHOT: its fetch walks
    every endpoint in turn, its credentials are the endpoints' environment variables (and
    `credentials`, for any other), `parse` is the offers-only parse of its pages."""
    if not endpoints or len({e.provider for e in endpoints}) != 1:
        raise ValueError("a REST connector is one provider's endpoints, at least one")

    def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
        for endpoint in endpoints:
            yield from endpoint.fetch_live(ctx)

    declared = [n for e in endpoints if e.credential for n in e.credential.env]
    return Connector(
        name=endpoints[0].provider,
        endpoints={e.endpoint: SNAPSHOT for e in endpoints},
        fetch_live=fetch_live,
        parse_pages=offers_only(parse),
        credentials=tuple(dict.fromkeys([*declared, *credentials])),
        json_endpoints=endpoints,
    )
