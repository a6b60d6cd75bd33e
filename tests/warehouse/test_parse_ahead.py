"""A refresh's small providers are parsed before any is staged and normalised in one call
(warehouse.ahead, connectors.kit.normalise.normalise_many): each comes out as its own
parse and normalise give it, and each still fails, or not, on its own."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from common.errors import PricingError
from connectors import registry
from connectors.kit import normalise as kit_normalise
from connectors.kit.connector import Connector
from connectors.kit.page import pages_frame
from tests._warehouse import query, refresh_from
from warehouse import ahead, raw
from warehouse.rawstore import RawStore
from warehouse.staging import parsed_from

DEMO = Path(__file__).parents[2] / "connectors" / "demo_snapshot"


@pytest.fixture(scope="module")
def unstaged(demo_warehouse):
    """Every demo provider's `parsed_from` as a new warehouse has it (nothing staged yet:
    every one is parsed), read from the shared demo warehouse."""
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        current = raw.current_pages(con, {n: registry.get(n).endpoints for n in registry.PROVIDERS})
        return {n: parsed_from(con, n, current[n])._replace(staged=[]) for n in registry.PROVIDERS}
    finally:
        con.close()


@pytest.fixture(scope="module")
def store(demo_warehouse) -> RawStore:
    return RawStore.beside(demo_warehouse)


def same(a: kit_normalise.Normalised, b: kit_normalise.Normalised, ordered: bool = True) -> None:
    """The same rows; in the same order too where `ordered` (AWS's parse gives its rows
    in no fixed order: two parses of the same pages are compared as sets)."""
    for part in ("offers", "rejected", "excluded", "unknown_gpu"):
        x, y = getattr(a, part), getattr(b, part)
        if not ordered or part in ("excluded", "unknown_gpu"):  # counts per load: no order
            x, y = x.sort(x.columns, nulls_last=True), y.sort(y.columns, nulls_last=True)
        assert_frame_equal(x, y)


def test_the_demo_small_providers_are_chosen_and_the_rest_parse_when_staged(unstaged, monkeypatch):
    chosen = ahead.chosen(unstaged)
    # every provider but the batched one (Azure), in the refresh's order
    assert list(chosen) == [n for n in unstaged if registry.get(n).batched_endpoint is None]
    assert len(chosen) == len(unstaged) - 1
    # pages already parsed by this code: nothing to parse
    done = unstaged["gcp"]._replace(staged=[(unstaged["gcp"].digest, unstaged["gcp"].code, "r")])
    assert "gcp" not in ahead.chosen({**unstaged, "gcp": done})
    # a series parse that goes on from its stored rows reads the warehouse: parsed when staged
    aws = unstaged["aws"]
    assert registry.get("aws").series_tables
    going_on = aws._replace(staged=[("older pages", aws.code, "r")])
    assert "aws" not in ahead.chosen({**unstaged, "aws": going_on})
    # larger pages than SMALL_BYTES: parsed when staged (AWS's are the demo's largest)
    size = int(raw.current_index(aws.pages)["payload_bytes"].sum())
    monkeypatch.setattr(ahead, "SMALL_BYTES", size - 1)
    assert "aws" not in ahead.chosen(unstaged) and "gcp" in ahead.chosen(unstaged)
    # one provider alone gains nothing
    assert ahead.chosen({"gcp": unstaged["gcp"], "azure": unstaged["azure"]}) == {}


def test_normalised_together_each_provider_gets_what_its_own_normalise_gives(unstaged, store):
    """Rows made invalid in every provider (their raw items, of each source's own shape,
    become the quarantined records) come out as each provider's own normalise gives them."""
    parses = {}
    for name, index in ahead.chosen(unstaged).items():
        offers = registry.get(name).parse(pages_frame(raw.with_payloads(index, store))).offers
        n = pl.int_range(pl.len())
        parses[name] = offers.with_columns(  # every shared check fails somewhere
            price_usd_per_hour=pl.when(n % 3 == 1).then(-1.0).otherwise("price_usd_per_hour"),
            gpu_count=pl.when(n % 5 == 2).then(0).otherwise("gpu_count"),
            pricing_model=pl.when(n % 7 == 3).then(pl.lit("bogus")).otherwise("pricing_model"),
            region=pl.when(n % 11 == 4).then(None).otherwise("region"),
            source_currency=pl.when(n % 13 == 5).then(pl.lit("XYZ")).otherwise("source_currency"),
            effective_at=pl.when(n % 17 == 6)
            .then(pl.col("fetched_at") + pl.duration(days=1000))
            .otherwise("effective_at"),
            provenance=pl.when(n % 19 == 7).then(pl.lit("rumour")).otherwise("provenance"),
        )
    assert sum("_item" in p.columns for p in parses.values()) > 5  # items of many shapes
    together = kit_normalise.normalise_many(parses)
    assert list(together) == list(parses)
    for name, rows in parses.items():
        same(together[name], kit_normalise.normalise(rows))
    itemised = [together[n].rejected for n, p in parses.items() if "_item" in p.columns]
    rejected = pl.concat(itemised)
    assert rejected.height > 100 and rejected["record"].null_count() == 0
    reasons = " ".join(pl.concat([n.rejected for n in together.values()])["reason"].unique())
    for why in ["USD/h is not positive", "gpu_count 0", "pricing_model bogus", "missing region",
                "non-USD price in XYZ", "effective date", "provenance rumour"]:  # fmt: skip
        assert why in reasons, why
    with pytest.raises(ValueError, match="_at"):
        kit_normalise.normalise_many({"x": parses["gcp"].with_columns(_at=pl.lit(1))})
    with pytest.raises(ValueError, match="no load_id"):
        kit_normalise.normalise_many({"x": parses["gcp"].with_columns(load_id=pl.lit(None))})


def test_parse_ahead_normalises_once_and_each_alone_when_that_fails(unstaged, store, monkeypatch):
    calls = []
    normalise = kit_normalise.normalise

    def counted(*args, **kwargs):
        calls.append(1)
        return normalise(*args, **kwargs)

    monkeypatch.setattr(kit_normalise, "normalise", counted)
    done = ahead.parse_ahead(store, unstaged)
    assert list(done) == list(ahead.chosen(unstaged)) and len(calls) == 1  # 18 providers

    def broken(parses):
        raise ValueError("one provider's rows break the call over all of them")

    monkeypatch.setattr(kit_normalise, "normalise_many", broken)
    alone = ahead.parse_ahead(store, unstaged)
    assert len(calls) == 1 + len(alone)
    for name, one in done.items():
        parsed, normalised = one.result()
        same(normalised, alone[name].result()[1], ordered=False)  # parsed again
        same(normalised, parsed.normalised())


@pytest.mark.parametrize("ahead_bytes", [ahead.SMALL_BYTES, 0], ids=["ahead", "when-staged"])
@pytest.mark.parametrize(
    "error",
    [PricingError("hyperstack: the pages no longer parse"), pl.exceptions.PanicException("boom")],
    ids=["parse-error", "polars-panic"],
)
def test_a_small_provider_whose_parse_fails_fails_alone(tmp_path, monkeypatch, ahead_bytes, error):
    """Parsed ahead or when staged, a parse error (or a panic inside Polars, which is no
    Exception) fails its provider alone: it stages nothing and says why in one line; the
    providers beside it publish."""
    parse = Connector.parse

    def failing(self, pages, latest=None):
        if self.name == "hyperstack":
            raise error
        return parse(self, pages, latest)

    monkeypatch.setattr(Connector, "parse", failing)
    monkeypatch.setattr(ahead, "SMALL_BYTES", ahead_bytes)
    warehouse = tmp_path / "w.duckdb"
    summary = refresh_from(warehouse, "demo", "lambdalabs", "hyperstack", "runpod")
    by = {p.provider: p for p in summary.providers}
    assert by["hyperstack"].parse_failed
    (line,) = by["hyperstack"].failed
    assert line.startswith("parse: ") and str(error) in line and "\n" not in line
    assert not by["lambdalabs"].failed and by["lambdalabs"].loaded == 14
    assert not by["runpod"].failed and by["runpod"].loaded > 0
    offers = query(warehouse, "SELECT DISTINCT provider FROM mart_gpu_offers_current")
    assert sorted(offers["provider"]) == ["lambdalabs", "runpod"]


def test_prices_that_are_not_positive_in_a_stacked_page_are_quarantined(tmp_path):
    """RunPod's parse stacks each GPU's four prices (secure and community, on demand and
    spot): a 0 or negative one among them is quarantined with its reason. Polars 2.1
    panicked computing the reason over those stacked columns, which crashed the refresh."""
    page = DEMO / "runpod" / "gpu_types" / "gpu-types-0001.json"
    recorded = json.loads(page.read_text())
    gpus = recorded["body"]["data"]["gpuTypes"]
    gpus[0]["securePrice"], gpus[2]["communityPrice"] = 0, -1
    copy = tmp_path / "snap" / "runpod" / "gpu_types" / page.name
    copy.parent.mkdir(parents=True)
    copy.write_text(json.dumps(recorded))
    warehouse = tmp_path / "w.duckdb"
    summary = refresh_from(warehouse, tmp_path / "snap", "runpod")
    (runpod,) = summary.providers
    assert summary.exit_code == 0 and not runpod.failed and runpod.rejected == 2
    reasons = query(warehouse, "SELECT reason FROM quarantine ORDER BY reason")["reason"]
    assert reasons.to_list() == [
        "price -1.0 USD/h is not positive",
        "price 0.0 USD/h is not positive",
    ]
