"""Credentials and auth steps of the declarative JSON endpoints (connectors.kit.rest).

- `Credential`: one value from the environment (the first of its variables that is set),
  sent in a header (after a scheme such as "Bearer "), a query parameter, a URL
  placeholder (`path="team"` fills `{team}`, quoted), or nowhere (read by an auth step).
  `optional`: sent when set, the request goes out without it otherwise. `secret=False`:
  an identifier (a team handle, a project or client id), not masked in outputs.
- an auth step, the escape hatch for what a header cannot say, run once per fetch of a
  connector and shared by its endpoints (a `RequestAuth` applied to every request):
  `OAuth2ClientCredentials` (a token request, then `Authorization: Bearer <token>`) and
  `Signed` (a request-signing hook: a provider's own `RequestAuth`, built from its keys,
  which signs each request and each retry).

A `RequestAuth` is httpx's callable form of auth (a function of the request that returns
it, headers set; httpx calls it for every request sent, retries included), not an
`httpx.Auth` subclass: declaring an endpoint then loads no httpx (connectors.kit.http).

Every credential is read when fetching; any missing (not `optional`) is one
MissingCredentials naming every variable that is not set: the provider is skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from common.redact import register
from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import DEFAULT_RETRY, RetryPolicy, request_json

if TYPE_CHECKING:
    import httpx

# what httpx takes as `auth=`: the request, its headers set (httpx.FunctionAuth)
RequestAuth = Callable[["httpx.Request"], "httpx.Request"]


@dataclass(frozen=True)
class Credential:
    """A value from the environment, sent in `header` (after `scheme`), as the query
    parameter `query`, in the URL placeholder `path`, or (none of these) only read by an
    auth step."""

    env: tuple[str, ...]
    header: str | None = None
    scheme: str = ""
    query: str | None = None
    path: str | None = None
    need: str = ""  # why it is needed, added to the MissingCredentials message
    optional: bool = False  # sent when set; without it the request goes out keyless
    secret: bool = True  # masked in every output (an identifier is not)

    def __post_init__(self) -> None:
        if sum(x is not None for x in (self.header, self.query, self.path)) > 1:
            raise ValueError("a credential is sent in one place: a header, the query or the path")

    def value(self) -> str | None:
        """The first of its variables that is set (stripped), else None."""
        return next((v for n in self.env if (v := os.environ.get(n, "").strip())), None)

    def headers(self, value: str | None) -> dict[str, str]:
        return {self.header: f"{self.scheme}{value}"} if self.header and value else {}

    def params(self, value: str | None) -> dict[str, str]:
        return {self.query: value} if self.query and value else {}


def read_env(
    provider: str, endpoint: str, credentials: Sequence[Credential]
) -> tuple[str | None, ...]:
    """Each credential's value (None: an optional one not set); any other not set is one
    MissingCredentials naming every such variable (the provider is skipped, not failed)."""
    values = tuple(c.value() for c in credentials)
    missing = [c for c, v in zip(credentials, values, strict=True) if v is None and not c.optional]
    if missing:
        names = [c.env[0] for c in missing]
        listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
        verb = "is" if len(names) == 1 else "are"
        need = "; ".join(c.need for c in missing if c.need)
        raise MissingCredentials(
            provider, endpoint, f"no credentials ({listed} {verb} not set{'; ' + need if need else ''})"
        )
    return values


class BearerAuth:
    """`Authorization: Bearer <token>` on every request (a `RequestAuth`)."""

    def __init__(self, token: str) -> None:
        self._token = token

    def __call__(self, request: httpx.Request) -> httpx.Request:
        request.headers["Authorization"] = f"Bearer {self._token}"
        return request


@dataclass(frozen=True)
class OAuth2ClientCredentials:
    """The OAuth2 client-credentials grant: `POST <base><token_path>` with
    `{"grant_type": "client_credentials", "client_id", "client_secret"}` (JSON), whose
    `access_token` is then sent as a Bearer header. The tokens handed out are registered
    with common.redact: an API that echoes one back leaks nothing."""

    token_path: str
    client_id: Credential
    client_secret: Credential
    endpoint: str = "oauth2_token"  # how the token request is named in an error

    @property
    def credentials(self) -> tuple[Credential, ...]:
        return (self.client_id, self.client_secret)

    def token(
        self,
        client: httpx.Client,
        provider: str,
        values: Sequence[str | None],
        *,
        base: str,
        policy: RetryPolicy = DEFAULT_RETRY,
    ) -> str:
        client_id, secret = values
        body = request_json(
            client,
            "POST",
            base + self.token_path,
            json={"grant_type": "client_credentials", "client_id": client_id, "client_secret": secret},
            provider=provider,
            endpoint=self.endpoint,
            policy=policy,
        )
        issued = body if isinstance(body, dict) else {}
        for name in ("access_token", "refresh_token"):
            if isinstance(issued.get(name), str):
                register(issued[name])
        token = issued.get("access_token")
        if not isinstance(token, str) or not token:
            # the excerpt would echo the token response: name the keys only
            keys = sorted(body) if isinstance(body, dict) else type(body).__name__
            raise UnexpectedResponse(provider, self.endpoint, f"no access_token in response {keys}")
        return token

    def authorize(self, client: httpx.Client, provider: str, values: Sequence[str | None],
                  *, base: str, policy: RetryPolicy = DEFAULT_RETRY) -> RequestAuth:  # fmt: skip
        return BearerAuth(self.token(client, provider, values, base=base, policy=policy))


@dataclass(frozen=True)
class Signed:
    """A request-signing hook: `sign(*values)` builds the provider's own `RequestAuth`
    from its keys (read from `credentials`), which signs every request and every retry."""

    credentials: tuple[Credential, ...]
    sign: Callable[..., RequestAuth]

    def authorize(self, client: httpx.Client, provider: str, values: Sequence[str | None],
                  *, base: str, policy: RetryPolicy = DEFAULT_RETRY) -> RequestAuth:  # fmt: skip
        return self.sign(*values)


AuthStep = OAuth2ClientCredentials | Signed


def declared_env(credentials: Sequence[Credential], auth: Any = None) -> tuple[str, ...]:
    """The secret variables of `credentials` and of an auth step, in order, once each."""
    every = [*credentials, *(auth.credentials if auth is not None else ())]
    return tuple(dict.fromkeys(n for c in every if c.secret for n in c.env))
