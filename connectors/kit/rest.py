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
- `credential`: one or several (connectors.kit.auth.Credential), each read from the
  environment (the first of its variables set wins; any not set: one MissingCredentials,
  the provider is skipped), sent in a header (with a scheme such as "Bearer "), a query
  parameter or a URL placeholder; a redirect to another host never carries them
  (connectors.kit.http);
- `paging`: `NextLink` (the body names the next URL), `Cursor` (the body names a token
  sent back as a query parameter), `PageNumber` (a page parameter counted up); a page
  without records ends the walk, and a walk that repeats a request or passes
  `max_pages` fails;
- `base`: the API's base URL its endpoints share, `url` then being the path after it;
  the settings key `<provider>_url` points the URL (or the base) elsewhere.

Escape hatches, still declarations: `method="POST"` with a JSON `body` (an RPC), a
`graphql` query (POSTed, with GraphQL's errors-in-a-200 answer failing), a `check` for a
body whose records are not a list, and an `auth` step run once per fetch and shared by
the endpoints (connectors.kit.auth: `OAuth2ClientCredentials`, or `Signed`, a
request-signing hook taking the provider's own `RequestAuth`).

An SDK source (AWS, GCP, Azure's SDK, Nebius' gRPC) keeps its own fetch: the escape hatch
is simply a `fetch_live` of its own, as the `Connector` contract takes any.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from common.errors import PricingError
from connectors.errors import UnexpectedResponse
from connectors.kit.auth import AuthStep, Credential, RequestAuth, declared_env, read_env
from connectors.kit.checks import require_items, require_list
from connectors.kit.connector import SNAPSHOT, Connector, ProviderDoc, offers_only
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, make_client, request_json
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now

if TYPE_CHECKING:
    import httpx


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
    # that a test or a deployment may replace); with `base`, the path after the base.
    # `{name}` placeholders are filled from the credentials sent in the path
    url: str | Callable[[], str]
    items: str | tuple[str, ...] | None = None  # None: the body is the array of records
    required: tuple[str, ...] = ()
    credential: Credential | tuple[Credential, ...] | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, str] = field(default_factory=dict)
    paging: Paging | None = None
    max_pages: int = 1000
    what: str = "item"  # how a record is named in an error
    # escape hatch: a body whose records are not a list (Lambda's object of instance
    # types) is checked by this instead (raising UnexpectedResponse); no page-number paging
    check: Callable[[Any], None] | None = None
    url_setting: str | None = None  # the FetchContext.settings key overriding `url` (or `base`)
    # the API's base URL shared by a provider's endpoints (the settings key overrides it)
    base: str | Callable[[], str] | None = None
    method: str = "GET"
    body: Any = None  # the JSON body sent (a POST RPC), recorded as the request's "body"
    # a GraphQL query: POSTed as {"query": ...}, recorded as the request's "query"; an
    # answer with `errors` (GraphQL says so with HTTP 200) is an UnexpectedResponse
    graphql: str | None = None
    # escape hatch: an auth step run once per fetch (OAuth2 token, request signing)
    auth: AuthStep | None = None

    def __post_init__(self) -> None:
        if self.check is not None and isinstance(self.paging, PageNumber):
            raise ValueError(f"{self.provider}/{self.endpoint}: a custom check cannot count pages")
        if self.graphql is not None and (self.body is not None or self.method != "GET"):
            raise ValueError(f"{self.provider}/{self.endpoint}: a GraphQL query is its own body")

    @property
    def credentials(self) -> tuple[Credential, ...]:
        c = self.credential
        return () if c is None else ((c,) if isinstance(c, Credential) else c)

    @property
    def item_path(self) -> tuple[str, ...]:
        return () if self.items is None else (
            (self.items,) if isinstance(self.items, str) else self.items
        )

    @property
    def setting(self) -> str:
        """The FetchContext.settings key that points it elsewhere (its URL, or its base)."""
        return self.url_setting or f"{self.provider}_url"

    def records(self, body: Any, where: str = "") -> list:
        """The records of one body, checked (connectors.kit.checks: the list is there,
        and its first record has every required key; UnexpectedResponse otherwise)."""
        path = self.item_path
        if not path:
            return require_list(self.provider, self.endpoint, body, self.required, what=self.what)
        if len(path) > 1 and not isinstance(dig(body, path), list):
            prefix = f"{where}: " if where else ""
            raise UnexpectedResponse(
                self.provider, self.endpoint,
                f"{prefix}response has no {'.'.join(path)} list", excerpt=repr(body),
            )  # fmt: skip
        parent = dig(body, path[:-1]) if len(path) > 1 else body
        return require_items(
            self.provider, self.endpoint, parent, path[-1], self.required, where=where
        )

    @property
    def default_url(self) -> str:
        return self.url() if callable(self.url) else self.url

    @property
    def default_base(self) -> str | None:
        return self.base() if callable(self.base) else self.base

    def credential_from_env(self) -> str:
        """Its one credential, read from the environment (MissingCredentials if unset)."""
        (value,) = read_env(self.provider, self.endpoint, self.credentials)
        assert value is not None
        return value

    def full_url(
        self, values: tuple[str | None, ...], *, url: str | None = None, base: str | None = None
    ) -> str:
        """The URL requested: `url` (or its own) after `base` (or its own) when it has one,
        with the path credentials filled in."""
        full = url or self.default_url
        if self.base is not None:
            full = (base or self.default_base or "") + full
        filled = {
            c.path: quote(v, safe="")
            for c, v in zip(self.credentials, values, strict=True)
            if c.path is not None and v is not None
        }
        return full.format(**filled) if filled else full

    def pages(
        self,
        client: httpx.Client,
        credential: str | tuple[str | None, ...] | None = None,
        *,
        url: str | None = None,
        base: str | None = None,
        policy: RetryPolicy = DEFAULT_RETRY,
        auth: RequestAuth | None = None,
    ) -> Iterator[Page]:
        """Every page of the endpoint, each checked, as received (`credential`: the value
        of its one credential, or of each, in order; `auth`: its auth step's result)."""
        creds = self.credentials
        values: tuple[str | None, ...] = (
            (credential,) if isinstance(credential, str) else (credential or (None,) * len(creds))
        )
        first = self.full_url(values, url=url, base=base)
        headers = dict(self.headers)
        params = dict(self.params)
        for c, v in zip(creds, values, strict=True):
            headers |= c.headers(v)
            params |= c.params(v)
        paging = self.paging
        if isinstance(paging, PageNumber):
            params[paging.param] = str(paging.start)
            if paging.size_param and paging.size:
                params[paging.size_param] = str(paging.size)
        method = "POST" if self.graphql is not None else self.method
        sent = {"query": self.graphql} if self.graphql is not None else self.body
        extra: dict[str, Any] = {"json": sent} if sent is not None else {}
        if auth is not None:
            extra["auth"] = auth
        seen: set[str] = set()
        n = 0
        next_url: str | None = first
        while next_url:
            full = str(client.build_request(method, next_url, params=params or None).url)
            if full in seen or n >= self.max_pages:
                why = "repeats an earlier request (a paging cycle)" if full in seen else (
                    f"passes {self.max_pages} pages"
                )
                raise UnexpectedResponse(self.provider, self.endpoint, f"page {n + 1} {why}")
            seen.add(full)
            body = request_json(
                client,
                method,
                next_url,
                headers=headers or None,
                params=params or None,
                provider=self.provider,
                endpoint=self.endpoint,
                policy=policy,
                **extra,
            )
            n += 1
            if self.graphql is not None:
                self._graphql_errors(body)
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

    def _graphql_errors(self, body: Any) -> None:
        errors = body.get("errors") if isinstance(body, dict) else None
        if errors:
            messages = [e.get("message", "?") if isinstance(e, dict) else str(e) for e in errors]
            raise UnexpectedResponse(
                self.provider, self.endpoint,
                f"GraphQL errors: {'; '.join(messages)}", excerpt=repr(body),
            )  # fmt: skip

    def _request(self, url: str, params: dict[str, str], n: int) -> dict[str, Any]:
        """What a page records as its request: the URL, the body or query it sent, and
        when paged its page number and the query string (never a credential)."""
        sent: dict[str, Any] = (
            {"query": self.graphql} if self.graphql is not None
            else {"body": self.body} if self.body is not None else {}
        )  # fmt: skip
        if self.paging is None and not self.params:
            return {"url": url, **sent}
        secret = {c.query for c in self.credentials if c.query}
        query = {k: v for k, v in params.items() if k not in secret}
        return {"url": url, "params": query, "page": n, **sent}

    def _next(
        self, body: Any, records: list, url: str, params: dict[str, str]
    ) -> tuple[str | None, dict[str, str]]:
        paging = self.paging
        if paging is None or (self.check is None and not records):
            return None, params  # a page without records ends the walk (as dlt's paginators)
        if isinstance(paging, NextLink):
            link = dig(body, paging.path)
            # the link carries its own query: the first request's params are not re-sent
            secret = {c.query for c in self.credentials if c.query}
            return (link or None), {k: v for k, v in params.items() if k in secret}
        if isinstance(paging, Cursor):
            token = dig(body, paging.path)
            return (url if token else None), {**params, paging.param: str(token)}
        return url, {**params, paging.param: str(int(params[paging.param]) + 1)}

    def fetch_live(self, ctx: FetchContext) -> Iterator[Page | FetchFailure]:
        """The live fetch of this endpoint alone (see `fetch_endpoints`)."""
        return fetch_endpoints((self,), ctx.settings)


def live_fetch(*endpoints: JsonEndpoint) -> Callable[[FetchContext], Iterator[Page | FetchFailure]]:
    """The live fetch of a provider's endpoints, in turn (`fetch_endpoints`)."""

    def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
        return fetch_endpoints(endpoints, ctx.settings)

    return fetch_live


def fetch_endpoints(
    endpoints: Sequence[JsonEndpoint],
    settings: Mapping[str, Any] | None = None,
    *,
    policy: RetryPolicy = DEFAULT_RETRY,
) -> Iterator[Page | FetchFailure]:
    """The live fetch of a provider's endpoints, in turn, over one client: every
    credential is read from the environment first (any missing: one MissingCredentials
    for the first endpoint, the provider is skipped); each auth step runs once, before
    the first endpoint that needs it (failing: that endpoint's FetchFailure, and the
    endpoints needing it are not asked); a failure is the endpoint's FetchFailure, not an
    exception, and the next endpoint is still fetched. `settings` (FetchContext.settings)
    may point an endpoint's URL, or its base, elsewhere."""
    settings = settings or {}
    first = endpoints[0]
    # every credential of the connector, read at once (an auth step's first): one
    # MissingCredentials names every variable that is not set
    every = tuple(dict.fromkeys(
        c for e in endpoints for c in (*(e.auth.credentials if e.auth else ()), *e.credentials)
    ))  # fmt: skip
    try:
        read = dict(zip(every, read_env(first.provider, first.endpoint, every), strict=True))
    except PricingError as exc:
        yield FetchFailure(first.provider, first.endpoint, "", exc)
        return
    values = [tuple(read[c] for c in e.credentials) for e in endpoints]
    keys = {e.auth: tuple(read[c] for c in e.auth.credentials) for e in endpoints if e.auth}
    authorized: dict[tuple[Any, str], RequestAuth | None] = {}
    with make_client() as client:
        for e, vals in zip(endpoints, values, strict=True):
            where = {"base": settings.get(e.setting, e.default_base)} if e.base is not None else {
                "url": settings.get(e.setting, e.default_url)
            }
            try:
                auth = None
                if e.auth is not None:
                    step = (e.auth, where.get("base") or "")
                    if step in authorized and authorized[step] is None:
                        continue  # its auth step failed, said once
                    if step not in authorized:
                        authorized[step] = None
                        authorized[step] = e.auth.authorize(
                            client, e.provider, keys[e.auth], base=step[1], policy=policy
                        )
                    auth = authorized[step]
                yield from e.pages(client, vals, policy=policy, auth=auth, **where)
            except PricingError as exc:
                yield FetchFailure(e.provider, e.endpoint, "", exc)


def rest_connector(
    *endpoints: JsonEndpoint,
    parse: Callable[[Any], Any],
    credentials: tuple[str, ...] = (),
    doc: ProviderDoc | None = None,
) -> Connector:
    """The connector of a source made of JSON endpoints, each a SNAPSHOT: its fetch walks
    every endpoint in turn (`fetch_endpoints`), its credentials are the endpoints' and
    their auth steps' secret environment variables (and `credentials`, for any other),
    `parse` is the offers-only parse of its pages."""
    if not endpoints or len({e.provider for e in endpoints}) != 1:
        raise ValueError("a REST connector is one provider's endpoints, at least one")

    declared = [n for e in endpoints for n in declared_env(e.credentials, e.auth)]
    return Connector(
        name=endpoints[0].provider,
        endpoints={e.endpoint: SNAPSHOT for e in endpoints},
        fetch_live=live_fetch(*endpoints),
        parse_pages=offers_only(parse),
        credentials=tuple(dict.fromkeys([*declared, *credentials])),
        json_endpoints=endpoints,
        doc=doc,
    )
