"""Credentials stay with their host: every provider's live fetch runs against a local
server (host A) that redirects every request to a second local server (host B, another
port: another origin), and what host B received (headers, query, body) is searched for
every credential of the test. Host A must have received the provider's credential (so
the search is not vacuous), host B none, whatever the header is called (`api_key`,
`api-key`, `X-APITOKEN`, `x-goog-api-key`, `Authorization` ...).

Every registered connector is covered: one built from the kit's JSON endpoints is pointed
at host A through its settings (nothing to add here), any other is in exactly one table
below: pointed at host A, or named as one that speaks no redirect-following HTTP (such a
connector fails the test until it is placed).
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest

from connectors.kit import http as kit_http
from connectors.kit.page import FetchContext, FetchFailure
from connectors.registry import PROVIDERS

# a distinctive value for every credential variable a connector declares; a few whose
# format the client checks are given one that passes
SECRETS = {
    **{
        name: f"RedirTest{name.title().replace('_', '')}0123456789"
        for c in PROVIDERS.values()
        for name in c.credentials
    },
    "GOOGLE_API_KEY": "AIzaRedirTestGoogleKey0123456789abcdefg",
    "CRUSOE_SECRET_KEY": "RedirTestCrusoeSecretKey0123456789abcdef",  # URL-safe base64
    "AWS_ACCESS_KEY_ID": "AKIA" + "REDIRTEST0000001",
    "AWS_SECRET_ACCESS_KEY": "RedirTestAwsSecret/0123456789abcdefghijklmn",
}
PLAIN_ENV = {
    "VERDA_CLIENT_ID": "verda-client-0001",
    "CRUSOE_PROJECT_ID": "crusoe-project-0001",
    "HOTAISLE_TEAM_HANDLE": "hotaisle-team-0001",
}
MARKER = "redirtest"


def _set(module: str, attr: str, path: str) -> Callable[[pytest.MonkeyPatch, str], None]:
    def point(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
        monkeypatch.setattr(f"{module}.{attr}", base + path)

    return point


def _gcp(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    from connectors.gcp import fetch

    monkeypatch.setattr(fetch, "client_from_env", functools.partial(fetch.client_from_env, api_endpoint=base))  # fmt: skip
    quick = functools.partial(fetch.default_retry, 0.01, 0.01, 0.5)
    monkeypatch.setattr(fetch, "default_retry", quick)


def _aws(monkeypatch: pytest.MonkeyPatch, base: str) -> None:
    from connectors.aws import fetch

    monkeypatch.setenv("AWS_ENDPOINT_URL", base)
    monkeypatch.setattr(fetch, "fetch_all", functools.partial(fetch.fetch_all, advisor_url=base + "/aws/advisor.json", offers_base_url=base + "/aws"))  # fmt: skip


# provider -> how its live fetch is pointed at host A
POINTED: dict[str, Callable[[pytest.MonkeyPatch, str], None]] = {
    "azure": _set("connectors.azure.settings", "RETAIL_URL", "/azure/api/retail/prices"),
    "aws": _aws,
    "gcp": _gcp,
    "vastai": _set("connectors.vastai.settings", "BUNDLES_URL", "/vastai/api/v0/bundles/"),
    "oci": _set("connectors.oci.settings", "PRODUCTS_URL", "/oci/products/"),
}
# providers whose fetch follows no HTTP redirect: the repository's own CSV files, gRPC
NO_HTTP = {"sheets": "reads the repository's CSV files", "nebius": "gRPC, no redirects"}
# providers whose credentials the test's fetch sends (each connector declares its own):
# all that declare any, but Azure, whose credential serves the ARM SDK (no subscription
# id here, so only the keyless retail prices are fetched)
KEYED = {name for name, c in PROVIDERS.items() if c.credentials} - {"azure"}


def pointing(provider: str) -> Callable[[pytest.MonkeyPatch, str], dict[str, str]]:
    """How a provider's fetch is pointed at host A: a connector built from the kit's JSON
    endpoints takes its URL from `FetchContext.settings` (nothing to list here); any
    other is listed in POINTED."""
    endpoints = PROVIDERS[provider].json_endpoints
    if endpoints:
        keys = {e.url_setting or f"{provider}_url" for e in endpoints}
        return lambda monkeypatch, base: {k: f"{base}/{provider}" for k in keys}
    set_up = POINTED[provider]

    def point(monkeypatch: pytest.MonkeyPatch, base: str) -> dict[str, str]:
        set_up(monkeypatch, base)
        return {}

    return point


KIT_REST = {name for name, c in PROVIDERS.items() if c.json_endpoints}
FETCHED = sorted(set(POINTED) | KIT_REST)


def test_every_registered_provider_is_placed():
    assert set(FETCHED) | set(NO_HTTP) == set(PROVIDERS)
    assert not set(POINTED) & set(NO_HTTP) and not set(POINTED) & KIT_REST


class _Host:
    """A local HTTP server on a free port that records every request as received, raw
    (http.server keeps every header, `api_key` with its underscore too, which WSGI
    servers drop) and answers with `answer(path_and_query) -> (status, headers, body)`."""

    def __init__(self, answer: Callable[[str], tuple[int, dict[str, str], bytes]]) -> None:
        self.seen: list[str] = []
        host = self

        class Handler(BaseHTTPRequestHandler):
            def _any(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                body = self.rfile.read(length).decode(errors="replace") if length else ""
                host.seen.append(f"{self.command} {self.path} {self.headers.as_string()} {body}")
                status, headers, payload = answer(self.path)
                self.send_response(status)
                for k, v in {**headers, "Content-Length": str(len(payload))}.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(payload)

            do_GET = do_POST = do_HEAD = do_PUT = _any

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.thread = threading.Thread(target=self.server.serve_forever, args=(0.05,), daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def hosts():
    """Host A answers every request with a redirect to the same path and query on host B
    (307: the method and body are kept, the strictest case); host B answers 401."""
    unauthorized = json.dumps({"message": "unauthorized"}).encode()
    b = _Host(lambda path: (401, {"Content-Type": "application/json"}, unauthorized))
    a = _Host(lambda path: (307, {"Location": b.url + path}, b""))
    yield a, b, {"a": a.seen, "b": b.seen}
    a.close()
    b.close()


def _secret_forms() -> list[str]:
    from urllib.parse import quote

    values = [*SECRETS.values(), MARKER]
    return sorted({f.lower() for v in values for f in (v, quote(v, safe=""))})


@pytest.mark.slow
@pytest.mark.parametrize("provider", FETCHED)
def test_no_credential_reaches_a_second_host(provider, hosts, monkeypatch, tmp_path):
    a, _, seen = hosts
    for name, value in {**SECRETS, **PLAIN_ENV}.items():
        monkeypatch.setenv(name, value)
    for name in ("AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
        monkeypatch.setenv(name, str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("GPU_PRICING_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(kit_http, "DEFAULT_RETRY", kit_http.RetryPolicy(attempts=1))
    settings = pointing(provider)(monkeypatch, a.url)
    ctx = FetchContext(regions=("us-east-1",), settings=settings)
    results = list(PROVIDERS[provider].fetch_live(ctx))
    assert seen["a"], f"{provider} never called host A: {results}"
    assert all(isinstance(r, FetchFailure) for r in results)  # host B refuses everything
    received_a = " ".join(seen["a"]).lower()
    if provider in KEYED:
        sent = [f for f in _secret_forms() if f in received_a and f != MARKER]
        assert sent, f"{provider} sent no credential to host A: the test would be vacuous"
    received_b = " ".join(seen["b"]).lower()
    leaked = [f for f in _secret_forms() if f in received_b]
    assert not leaked, f"{provider}: host B received {leaked}: {seen['b']}"


def test_a_cross_host_redirect_keeps_only_headers_that_hold_no_credential(hosts):
    """Whatever a provider calls its key header, and a credential in the query, stays
    with host A; a same-host redirect keeps them (a provider's own moves still work)."""
    a, _, seen = hosts
    headers = {"api_key": "k1-secret-value", "X-APITOKEN": "k2-secret-value",
               "Accept": "application/json"}  # fmt: skip
    with kit_http.make_client() as client:
        client.get(f"{a.url}/p", params={"api_key": "q1", "page": "2"}, headers=headers)  # fmt: skip
    got = seen["b"][0]
    assert "secret-value" not in got and "q1" not in got
    assert "page=2" in got and "application/json" in got


def test_a_cross_host_redirect_of_a_request_with_a_body_is_not_followed(hosts):
    a, _, seen = hosts
    with kit_http.make_client() as client, pytest.raises(kit_http.CrossOriginRedirect):
        client.post(f"{a.url}/token", data={"client_secret": "s3cr3t-value"})
    assert not seen["b"]


def test_a_same_host_redirect_keeps_the_credential():
    host = _Host(
        lambda path: (302, {"Location": "/new"}, b"") if path == "/old" else (200, {}, b"ok")
    )
    try:
        with kit_http.make_client() as client:
            assert client.get(host.url + "/old", headers={"api_key": "kept-key"}).text == "ok"
        assert "kept-key" in host.seen[1]
    finally:
        host.close()


def test_the_cross_host_rule_holds_for_an_https_downgrade():
    old, new = httpx.URL("https://api.example.com/x"), httpx.URL("http://api.example.com/x")
    assert not kit_http.same_origin(old, new)
    assert kit_http.same_origin(new, httpx.URL("https://api.example.com/y"))
