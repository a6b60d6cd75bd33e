"""A parse Polars cannot run over a provider's pages (a value of another JSON type than the
page's declared shape: "n/a" where a number goes) fails with one line naming the page,
its load and fetch, and Polars' own words for the value (connectors.kit.connector
`Connector.parse`), whichever connector decodes it and however many pages it has."""

from __future__ import annotations

import json

import pytest

from connectors import registry
from connectors.errors import UnexpectedResponse
from connectors.kit.page import FetchContext, Page, pages_frame
from flows import pipeline


def demo_pages(provider: str) -> list[Page]:
    return [p for p in pipeline.fetch_pages(provider, "demo", FetchContext()) if isinstance(p, Page)]


def with_body(page: Page, body: dict) -> Page:
    return Page(page.provider, page.endpoint, page.fetched_at, page.request,
                data=json.dumps(body).encode())  # fmt: skip


def test_a_value_of_another_type_names_its_page_and_the_value():
    (page,) = demo_pages("lambdalabs")
    body = json.loads(page.content)
    first = next(iter(body["data"].values()))
    first["instance_type"]["price_cents_per_hour"] = "n/a"
    with pytest.raises(UnexpectedResponse) as info:
        registry.get("lambdalabs").parse(pages_frame([with_body(page, body)]))
    line = str(info.value)
    assert line.startswith("lambdalabs/instance_types: the page ")
    assert "https://cloud.lambda.ai/api/v1/instance-types" in line
    assert "(load load-0, fetched 2026-11-20 02:00:00) does not parse: ComputeError" in line
    assert '"n/a"' in line and "\n" not in line


@pytest.mark.parametrize("endpoint", ["savings_plans", "spot_advisor", "instance_types"])
def test_among_many_pages_the_one_that_does_not_parse_is_named(endpoint):
    """AWS's 26 demo pages of seven endpoints, each decoded its own way: one page's numbers
    made text, and the line names that page (found by parsing halves of the pages)."""
    pages = demo_pages("aws")
    at = next(i for i, p in enumerate(pages) if p.endpoint == endpoint)
    # the page's every JSON number becomes the text "n/a"
    pages[at] = with_body(pages[at], _as_text(json.loads(pages[at].content)))
    with pytest.raises(UnexpectedResponse) as info:
        registry.get("aws").parse(pages_frame(pages))
    line = str(info.value)
    assert line.startswith(f"aws/{endpoint}: the page ") and f"(load load-{at}," in line
    assert "does not parse" in line and "\n" not in line


def _as_text(value):
    if isinstance(value, dict):
        return {k: _as_text(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_as_text(v) for v in value]
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return "n/a"
    return value
