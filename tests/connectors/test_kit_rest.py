"""The declarative JSON endpoint (connectors.kit.rest) against a local server: each way
of paging, the guards (a repeated request, too many pages), the shape check, the
credential in a header or the query (never in a page's recorded request), and the
FetchFailure ceremony (no credential: skipped; an HTTP error: one failure)."""

from __future__ import annotations

import pytest
from werkzeug import Request, Response

from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import RetryPolicy, make_client
from connectors.kit.page import FetchContext, FetchFailure, Page
from connectors.kit.rest import Credential, Cursor, JsonEndpoint, NextLink, PageNumber

FAST = RetryPolicy(attempts=1)


def endpoint(httpserver, **kwargs) -> JsonEndpoint:
    return JsonEndpoint(
        provider="kitcloud", endpoint="offers", url=httpserver.url_for("/offers"),
        items="data", required=("id",), **kwargs,
    )  # fmt: skip


def walk(ep: JsonEndpoint, credential: str | None = None) -> list[Page]:
    with make_client() as client:
        return list(ep.pages(client, credential, policy=FAST))


def test_next_link_paging_follows_the_body_until_it_names_none(httpserver):
    httpserver.expect_request("/offers").respond_with_json(
        {"data": [{"id": 1}], "next": httpserver.url_for("/offers2")}
    )
    httpserver.expect_request("/offers2").respond_with_json({"data": [{"id": 2}], "next": None})
    pages = walk(endpoint(httpserver, paging=NextLink(("next",))))
    assert [p.body["data"][0]["id"] for p in pages] == [1, 2]
    assert [p.request["page"] for p in pages] == [1, 2]


def test_cursor_paging_sends_the_token_back(httpserver):
    def answer(request: Request) -> Response:
        cursor = request.args.get("cursor")
        body = {"data": [{"id": cursor or "first"}], "meta": {"next": "" if cursor else "abc"}}
        return Response(__import__("json").dumps(body), 200, content_type="application/json")

    httpserver.expect_request("/offers").respond_with_handler(answer)
    pages = walk(endpoint(httpserver, paging=Cursor(("meta", "next"), "cursor")))
    assert [p.body["data"][0]["id"] for p in pages] == ["first", "abc"]


def test_page_number_paging_stops_at_an_empty_page(httpserver):
    def answer(request: Request) -> Response:
        n = int(request.args["page"])
        body = {"data": [{"id": n}] if n < 3 else []}
        return Response(__import__("json").dumps(body), 200, content_type="application/json")

    httpserver.expect_request("/offers").respond_with_handler(answer)
    pages = walk(endpoint(httpserver, paging=PageNumber("page", size_param="per_page", size=50)))
    assert [p.request["params"] for p in pages] == [
        {"page": "1", "per_page": "50"}, {"page": "2", "per_page": "50"},
        {"page": "3", "per_page": "50"},
    ]  # fmt: skip


def test_a_next_link_back_to_an_earlier_page_is_a_cycle(httpserver):
    httpserver.expect_request("/offers").respond_with_json(
        {"data": [{"id": 1}], "next": httpserver.url_for("/offers")}
    )
    with pytest.raises(UnexpectedResponse, match="paging cycle"):
        walk(endpoint(httpserver, paging=NextLink(("next",))))


def test_a_walk_stops_at_max_pages(httpserver):
    def answer(request: Request) -> Response:
        n = int(request.args.get("page", "1"))
        body = {"data": [{"id": n}]}
        return Response(__import__("json").dumps(body), 200, content_type="application/json")

    httpserver.expect_request("/offers").respond_with_handler(answer)
    with pytest.raises(UnexpectedResponse, match="passes 3 pages"):
        walk(endpoint(httpserver, paging=PageNumber("page"), max_pages=3))


@pytest.mark.parametrize(
    ("body", "message"),
    [({"items": []}, "no 'data' list"), ({"data": [{"name": "x"}]}, "lacks required field")],
)
def test_a_body_of_another_shape_fails_the_fetch(httpserver, body, message):
    httpserver.expect_request("/offers").respond_with_json(body)
    with pytest.raises(UnexpectedResponse, match=message):
        walk(endpoint(httpserver))


def test_a_query_credential_is_sent_but_never_recorded(httpserver):
    httpserver.expect_request(
        "/offers", query_string={"currency": "USD", "key": "K123456789"}
    ).respond_with_json({"data": [{"id": 1}]})
    ep = endpoint(httpserver, params={"currency": "USD"},
                  credential=Credential(env=("KITCLOUD_KEY",), query="key"))  # fmt: skip
    (page,) = walk(ep, "K123456789")
    assert "K123456789" not in repr(page.request)


def test_fetch_live_owns_the_ceremony(httpserver, monkeypatch):
    ep = endpoint(httpserver, credential=Credential(env=("KITCLOUD_KEY",), header="X-Key"))
    monkeypatch.delenv("KITCLOUD_KEY", raising=False)
    (skipped,) = list(ep.fetch_live(FetchContext()))
    assert isinstance(skipped, FetchFailure) and isinstance(skipped.error, MissingCredentials)
    monkeypatch.setenv("KITCLOUD_KEY", "KitKey0123456789")
    httpserver.expect_request("/offers", headers={"X-Key": "KitKey0123456789"}).respond_with_json(
        {"message": "nope"}, status=403
    )
    (failed,) = list(ep.fetch_live(FetchContext()))
    assert isinstance(failed, FetchFailure) and "HTTP 403" in str(failed.error)
    other = httpserver.url_for("/elsewhere")
    httpserver.expect_request("/elsewhere").respond_with_json({"data": [{"id": 7}]})
    (page,) = list(ep.fetch_live(FetchContext(settings={"kitcloud_url": other})))
    assert page.source_url == other
