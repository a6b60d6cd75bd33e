"""Invariants every registered connector's offers satisfy, run for each one from the
registry (as gpuhunt's OffersIntegrityTests run for every provider): its demo pages parse
(purely: twice, the same rows), every row says ok, excluded or rejected, and a row set
aside says why; what the shared normalise step stages carries the connector's own provider
names, a positive price, a GPU count that is positive (or unknown with the GPU), a
per-GPU price within the sanity limit, and the vocabulary's pricing models and
provenances. A connector added to the registry is tested here with nothing to edit."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

from common.schemas import PRICING_MODELS, PROVENANCES
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.normalise import MAX_USD_PER_GPU_HOUR
from connectors.kit.page import pages_frame
from connectors.registry import PROVIDERS

DEMO = Path(kit_snapshot.DEMO_DIR)


@pytest.fixture(scope="module", params=sorted(PROVIDERS))
def parsed(request):
    name = request.param
    pages = list(kit_snapshot.read_provider(DEMO, name))
    assert pages, f"{name}: no demo pages under {DEMO / name} (a connector brings its own)"
    connector = PROVIDERS[name]
    first = connector.parse(pages_frame(pages))
    again = connector.parse(pages_frame(pages))
    return name, first, again


def _rows(frame: pl.DataFrame) -> list[str]:
    """The rows as sorted CSV lines (a multiset: parse may order rows as it likes), without
    the raw record kept for quarantine, or where it is (CloudRift's, decoded with an inferred schema, may
    list its datacenters' keys in another order)."""
    return sorted(frame.drop("_item", "_at", "record", strict=False).write_csv().splitlines())


def test_parse_is_pure(parsed):
    name, first, again = parsed
    assert _rows(first.offers) == _rows(again.offers), name


def test_every_row_has_a_verdict_and_a_set_aside_row_a_reason(parsed):
    name, offers = parsed[0], parsed[1].offers
    assert set(offers["status"].fill_null("ok").unique()) <= {"ok", "excluded", "rejected"}, name
    aside = offers.filter(pl.col("status").is_in(["excluded", "rejected"]))
    assert aside["reason"].null_count() == 0, name


def test_staged_offers_keep_the_shared_invariants(parsed):
    name, result = parsed[0], parsed[1].normalised()
    staged = result.offers
    assert staged.height > 0, f"{name}: its demo pages stage no offer"
    allowed = {name, *PROVIDERS[name].emits_providers}
    assert set(staged["provider"].unique()) <= allowed, name
    bad = staged.filter(
        (pl.col("price_usd_per_hour") <= 0)
        | pl.col("price_usd_per_hour").is_null()
        | (pl.col("gpu_count") <= 0)
        | (pl.col("gpu_count").is_null() & pl.col("gpu_name").is_not_null())
        | (pl.col("price_usd_per_gpu_hour") > MAX_USD_PER_GPU_HOUR)
        | ~pl.col("pricing_model").is_in(PRICING_MODELS)
        | ~pl.col("provenance").is_in(PROVENANCES)
        | pl.col("region").is_null()
        | pl.col("instance_type").is_null()
    )
    assert bad.is_empty(), (name, bad.head(3).to_dicts())
