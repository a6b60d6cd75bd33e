"""DigitalOcean fetch through the real httpx client against a local server."""

from __future__ import annotations

import copy

import pytest
from werkzeug import Response

from connectors.digitalocean import fetch
from connectors.errors import MissingCredentials, UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext

PATH = "/v2/sizes"
TOKEN = "dop_v1_secret_token"


@pytest.fixture
def pages(httpserver, recorded):
    """The recorded two pages, with `links.pages.next` pointing at the local server."""
    first, second = copy.deepcopy(recorded("digitalocean", "sizes.json")["pages"])
    first["links"]["pages"]["next"] = httpserver.url_for(PATH) + "?page=2&per_page=200"
    return first, second


def fetch_all(httpserver, policy):
    with make_client() as client:
        return list(fetch.fetch_sizes(client, TOKEN, url=httpserver.url_for(PATH), policy=policy))


def test_pages_follow_links_next_with_the_token_until_there_is_none(httpserver, fast_retry, pages):
    bearer = {"Authorization": f"Bearer {TOKEN}"}
    httpserver.expect_ordered_request(
        PATH, query_string="per_page=200&page=1", headers=bearer
    ).respond_with_json(pages[0])
    httpserver.expect_ordered_request(
        PATH, query_string="page=2&per_page=200", headers=bearer
    ).respond_with_json(pages[1])
    got = fetch_all(httpserver, fast_retry)
    assert [len(p.body["sizes"]) for p in got] == [3, 3]
    assert [p.request["page"] for p in got] == [1, 2]
    assert all(TOKEN not in p.payload and TOKEN not in str(p.request) for p in got)


def test_an_empty_sizes_list_ends_the_walk(httpserver, fast_retry, pages):
    empty = {"sizes": [], "links": {"pages": {"next": httpserver.url_for(PATH) + "?page=9"}}}
    httpserver.expect_request(PATH).respond_with_json(empty)
    assert len(fetch_all(httpserver, fast_retry)) == 1


def test_a_next_link_that_loops_fails_the_walk(httpserver, fast_retry, pages):
    looping = copy.deepcopy(pages[0])
    looping["links"]["pages"]["next"] = httpserver.url_for(PATH) + "?page=1"
    httpserver.expect_request(PATH).respond_with_json(looping)
    with pytest.raises(UnexpectedResponse, match="page 3 repeats an earlier request"):
        fetch_all(httpserver, fast_retry)
    assert len(httpserver.log) == 2


def test_429_is_retried_then_succeeds(httpserver, fast_retry, pages):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("too many", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(pages[1])
    (page,) = fetch_all(httpserver, fast_retry)
    assert page.body["sizes"][0]["slug"] == "gpu-mi300x8-1536gb"


def test_without_a_token_the_provider_is_skipped(monkeypatch):
    for var in ("DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN", "DIGITAL_OCEAN_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    (failure,) = list(fetch.fetch_live(FetchContext()))
    assert failure.skipped and isinstance(failure.error, MissingCredentials)
    assert "DIGITALOCEAN_TOKEN" in str(failure.error)


def test_fetch_live_reads_the_token_from_the_environment(httpserver, monkeypatch, pages):
    monkeypatch.setenv("DIGITALOCEAN_TOKEN", TOKEN)
    httpserver.expect_request(PATH, headers={"Authorization": f"Bearer {TOKEN}"}).respond_with_json(
        pages[1]
    )
    ctx = FetchContext(settings={"digitalocean_url": httpserver.url_for(PATH)})
    assert [type(i).__name__ for i in fetch.fetch_live(ctx)] == ["Page"]


def test_a_body_without_sizes_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"id": "unauthorized", "message": "x"})
    with pytest.raises(UnexpectedResponse, match="no 'sizes' list"):
        fetch_all(httpserver, fast_retry)
