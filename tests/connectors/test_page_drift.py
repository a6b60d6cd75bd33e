"""A drifted page fails its provider instead of erasing offers: one page of each
provider's demo snapshot replaced by `{}`, by its item list set to null, or by an empty
list, makes the parse raise (the refresh then fails that provider alone, which keeps its
last good data), for Azure (`{}`, `Items: null`, `Items: []`), GCP (`skus: null`) and
every JSON provider below. Endpoints whose pages may legitimately hold nothing (a region
without spot price changes, no capacity on offer) are listed with the reason."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from common.errors import PricingError
from connectors.kit import page as kit_page
from connectors.kit import snapshot as kit_snapshot
from connectors.registry import PROVIDERS

DEMO = Path(__file__).resolve().parents[2] / "connectors" / "demo_snapshot"
# provider -> endpoints guarded per page (the first page of each is damaged)
GUARDED = {
    "azure": ("retail_prices",), "gcp": ("skus",), "lambdalabs": ("instance_types",),
    "runpod": ("gpu_types",), "vastai": ("bundles",), "oci": ("products",),
    "hyperstack": ("pricebook",), "verda": ("instance_types", "locations"),
    "digitalocean": ("sizes",), "vultr": ("plans", "plans_metal"),
    "cloudrift": ("instance_types",), "jarvislabs": ("server_meta",),
    "hotaisle": ("available_vms",), "crusoe": ("vm_types",), "fluidstack": ("configurations",),
    "seeweb": ("plans",), "nebius": ("estimates",),
}  # fmt: skip
# endpoints whose pages may hold an empty list, but never lose it
MISSING_ONLY = {"aws": ("price_list", "savings_plans", "instance_types", "spot_advisor")}
# where an empty list is a legitimate answer (the missing list still fails)
MAY_BE_EMPTY = {("crusoe", "capacities"): "no capacity anywhere",
                ("aws", "spot_price_history"): "no price change since the watermark",
                ("aws", "capacity_blocks"): "no block on offer"}  # fmt: skip


def _damaged(body, how: str):
    if how == "{}":
        return {}
    if isinstance(body, list):
        return None if how == "null" else []
    out = json.loads(json.dumps(body))
    node = out
    while True:  # the first list, however deep (data.gpuTypes, data.instance_types ...)
        key = next((k for k, v in node.items() if isinstance(v, list | dict)), None)
        if key is None:
            pytest.skip("no list in the page")
        if isinstance(node[key], list) or not node[key]:
            node[key] = None if how == "null" else ([] if isinstance(node[key], list) else {})
            return out
        node = node[key]


@pytest.mark.parametrize("how", ["{}", "null", "empty"])
@pytest.mark.parametrize(
    ("provider", "endpoint"), [(p, e) for p, eps in GUARDED.items() for e in eps]
)
def test_one_drifted_page_fails_the_provider(provider, endpoint, how):
    pages = list(kit_snapshot.read_provider(DEMO, provider))
    i = next(i for i, p in enumerate(pages) if p.endpoint == endpoint)
    p = pages[i]
    pages[i] = kit_page.Page(provider, p.endpoint, p.fetched_at, p.request, text=json.dumps(_damaged(p.decoded(), how)))  # fmt: skip
    with pytest.raises((PricingError, pl.exceptions.PolarsError)):
        PROVIDERS[provider].parse(kit_page.pages_frame(pages))


@pytest.mark.parametrize("how", ["{}", "null"])
@pytest.mark.parametrize(
    ("provider", "endpoint"), [(p, e) for p, eps in MISSING_ONLY.items() for e in eps]
)
def test_a_page_that_lost_its_list_fails_where_an_empty_one_is_fine(provider, endpoint, how):
    test_one_drifted_page_fails_the_provider(provider, endpoint, how)


@pytest.mark.parametrize(("provider", "endpoint"), sorted(MAY_BE_EMPTY))
def test_an_endpoint_that_may_be_empty_still_fails_without_its_list(provider, endpoint):
    pages = list(kit_snapshot.read_provider(DEMO, provider))
    i = next(i for i, p in enumerate(pages) if p.endpoint == endpoint)
    p = pages[i]
    empty = kit_page.Page(provider, p.endpoint, p.fetched_at, p.request, text=json.dumps(_damaged(p.decoded(), "empty")))  # fmt: skip
    PROVIDERS[provider].parse(kit_page.pages_frame([*pages[:i], empty, *pages[i + 1 :]]))
    pages[i] = kit_page.Page(provider, p.endpoint, p.fetched_at, p.request, text="{}")
    with pytest.raises(PricingError):
        PROVIDERS[provider].parse(kit_page.pages_frame(pages))
