"""Vast.ai fetch: the bundles search through httpx against a local server that behaves
like the marketplace (per-field operators, order by price, a `limit`, no offset)."""

from __future__ import annotations

import json
import logging

import pytest
from werkzeug import Request, Response

from connectors.errors import UnexpectedResponse
from connectors.kit.http import make_client
from connectors.kit.page import FetchContext
from connectors.vastai import fetch

PATH = "/api/v0/bundles/"


def market(prices: list[float], server_cap: int = 10_000):
    offers = [
        {"id": 100 + i, "gpu_name": "RTX 4090", "num_gpus": 1, "dph_total": p}
        for i, p in enumerate(prices)
    ]
    seen: list[dict] = []

    def handler(request: Request) -> Response:
        query = json.loads(request.data)
        seen.append(query)
        floor = query.get("dph_total", {})
        rows = [
            o for o in offers
            if o["dph_total"] >= floor.get("gte", float("-inf"))
            and o["dph_total"] > floor.get("gt", float("-inf"))
        ]  # fmt: skip
        rows.sort(key=lambda o: o["dph_total"])
        return Response(
            json.dumps({"offers": rows[: min(query["limit"], server_cap)]}),
            mimetype="application/json",
        )

    return handler, seen


def walk(httpserver, policy, **kwargs):
    with make_client() as client:
        return list(
            fetch.fetch_bundles(client, url=httpserver.url_for(PATH), policy=policy, **kwargs)
        )


def test_pages_by_raising_the_price_floor_until_nothing_new_comes_back(httpserver, fast_retry):
    handler, seen = market([0.30, 0.31, 0.35, 0.40, 0.40, 0.52, 0.60, 0.75])
    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    pages = walk(httpserver, fast_retry, limit=3)
    ids = {o["id"] for p in pages for o in p.body["offers"]}
    assert ids == set(range(100, 108))
    # floors: none, then the highest price of each page (boundary offers come back twice)
    assert [q.get("dph_total") for q in seen] == [
        None, {"gte": 0.35}, {"gte": 0.40}, {"gte": 0.52}, {"gte": 0.75}
    ]  # fmt: skip
    assert [p.request["page"] for p in pages] == [1, 2, 3, 4]  # the 5th had nothing new
    assert all(q["rentable"] == {"eq": True} and q["limit"] == 3 for q in seen)
    assert seen[0]["order"] == [["dph_total", "asc"]]


def test_a_server_that_caps_the_page_below_our_limit_is_still_walked_to_the_end(
    httpserver, fast_retry
):
    handler, _ = market([0.30, 0.31, 0.35, 0.40, 0.52, 0.60, 0.75], server_cap=2)
    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    pages = walk(httpserver, fast_retry, limit=1000)
    assert {o["id"] for p in pages for o in p.body["offers"]} == set(range(100, 107))


def test_a_full_page_at_one_price_steps_strictly_above_it_and_says_so(
    httpserver, fast_retry, caplog
):
    handler, seen = market([0.40, 0.40, 0.40, 0.40, 0.55])
    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    with caplog.at_level(logging.WARNING, logger="connectors.vastai.fetch"):
        pages = walk(httpserver, fast_retry, limit=3)
    # page 2 (>= 0.40) brings nothing new and is all 0.40: page 3 asks for > 0.40
    assert [q.get("dph_total") for q in seen[:3]] == [None, {"gte": 0.40}, {"gt": 0.40}]
    assert {o["id"] for p in pages for o in p.body["offers"]} == {100, 101, 102, 104}
    assert "stepping above it" in caplog.text


def test_the_walk_stops_at_max_pages(httpserver, fast_retry, caplog):
    handler, _ = market([0.1 * i for i in range(1, 30)])
    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    with caplog.at_level(logging.WARNING, logger="connectors.vastai.fetch"):
        pages = walk(httpserver, fast_retry, limit=2, max_pages=3)
    assert len(pages) == 3 and "stopped after 3 pages" in caplog.text


def test_search_needs_no_credentials(httpserver):
    handler, _ = market([0.3])
    httpserver.expect_request(PATH, method="POST").respond_with_handler(handler)
    items = list(fetch.fetch_live(FetchContext(settings={"vastai_url": httpserver.url_for(PATH)})))
    assert [type(i).__name__ for i in items] == ["Page"]
    assert "Authorization" not in httpserver.log[0][0].headers


def test_429_is_retried_then_succeeds(httpserver, fast_retry, recorded):
    httpserver.expect_ordered_request(PATH).respond_with_response(
        Response("busy", status=429, headers={"Retry-After": "0"})
    )
    httpserver.expect_ordered_request(PATH).respond_with_json(recorded("vastai", "bundles.json"))
    httpserver.expect_ordered_request(PATH).respond_with_json(recorded("vastai", "bundles.json"))
    pages = walk(httpserver, fast_retry)
    assert len(pages) == 1 and len(pages[0].body["offers"]) == 6
    assert len(httpserver.log) == 3  # 429, page 1, page 2 (nothing new: the end)


def test_a_body_without_an_offers_list_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"success": False, "msg": "bad query"})
    with pytest.raises(UnexpectedResponse, match="vastai/bundles: response has no 'offers' list"):
        walk(httpserver, fast_retry)


def test_an_offer_without_a_price_is_an_unexpected_response(httpserver, fast_retry):
    httpserver.expect_request(PATH).respond_with_json({"offers": [{"id": 1, "gpu_name": "A10"}]})
    with pytest.raises(UnexpectedResponse, match="dph_total"):
        walk(httpserver, fast_retry)
