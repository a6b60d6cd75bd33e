"""A malformed Azure item through the whole refresh (land -> parse from raw -> stage ->
marts) on a temporary DuckDB file: it is quarantined with its reason, the other Azure
items of its page and the other providers are published."""

from __future__ import annotations

import copy

import pytest

from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import Page
from flows import pipeline
from warehouse import db

pytestmark = pytest.mark.slow  # every test here: over ~2 s on a quiet 2-core machine


def demo(provider: str) -> list[Page]:
    return list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, provider))


def query(path, sql: str):
    con = db.connect_readonly(path)
    try:
        return db.query(con, sql)
    finally:
        con.close()


def with_bad_items(pages: list[Page]) -> tuple[list[Page], str, str]:
    """The demo pages with one item's retailPrice an object and another's effective date
    in 2999; returns the pages and the two items' meter ids."""
    out, meters = [], []
    for page in pages:
        body = copy.deepcopy(page.decoded())
        if page.endpoint == "retail_prices" and not meters and len(body["Items"]) >= 2:
            first, second = body["Items"][0], body["Items"][1]
            first["retailPrice"] = {"amount": first["retailPrice"]}
            second["effectiveStartDate"] = "2999-01-01T00:00:00Z"
            meters = [first["meterId"], second["meterId"]]
        out.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body,
                        source_url=page.source_url))
    return out, *meters


def test_a_malformed_azure_item_is_quarantined_and_everything_else_publishes(tmp_path):
    path = tmp_path / "w.duckdb"
    azure, bad_price, far_future = with_bad_items(demo("azure"))
    summary = pipeline.load_and_publish(
        path, {"azure": azure, "lambdalabs": demo("lambdalabs")}, source="test"
    )
    statuses = {p.provider: p.status for p in summary.providers}
    assert statuses == {"azure": "ok", "lambdalabs": "ok"}
    reasons = query(path, "SELECT reason, record FROM quarantine WHERE provider = 'azure'")
    by_meter = {r["reason"]: r["record"] for r in reasons.to_dicts()}
    assert bad_price in by_meter["retailPrice holds an object or a list, not a value"]
    (future,) = [r for r in by_meter if r.startswith("effective date 2999-01-01")]
    assert far_future in by_meter[future]
    published = query(
        path, "SELECT provider, count(*) AS n FROM mart_gpu_offers_current GROUP BY provider"
    )
    counts = dict(published.rows())
    assert counts["azure"] > 10 and counts["lambdalabs"] > 0
