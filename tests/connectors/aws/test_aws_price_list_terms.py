"""The Price List's items read once each: every option an item's terms list, priced as a
plain reading of its JSON, and the same price whatever else is parsed with it."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

from connectors.aws import parse
from connectors.kit.page import pages_frame
from samples.aws import aws_price_list_item
from tests.connectors.aws.test_aws_parse import p4d_item, price_list_page


def test_each_price_list_item_is_priced_in_every_option_its_terms_list():
    """The recorded price list pages of the demo (real GetProducts items), read once per
    item: each item's rows are its on-demand term and each reservation term, by the
    term's attributes, priced as a plain reading of the JSON prices it."""
    demo = Path(parse.__file__).parents[1] / "demo_snapshot" / "aws" / "price_list"
    bodies = [json.loads(p.read_text())["body"] for p in sorted(demo.glob("*.json"))]
    items = [item for body in bodies for item in body["PriceList"]]
    assert len(items) > 10
    rows = parse.parse(pages_frame([price_list_page(*items)]))
    got = {
        (r["record"], r["pricing_model"], r["pricing_detail"]): r["price_usd_per_hour"]
        for r in rows.iter_rows(named=True)
    }
    expected = {}
    for text in items:
        terms = json.loads(text)["terms"]
        for term in terms.get("OnDemand", {}).values():
            (hourly,) = [d for d in term["priceDimensions"].values() if d["unit"] == "Hrs"]
            expected[(text, "on_demand", None)] = float(hourly["pricePerUnit"]["USD"])
        for term in terms.get("Reserved", {}).values():
            a = term["termAttributes"]
            years = {"1yr": 1, "3yr": 3}[a["LeaseContractLength"]]
            usd = {
                d["unit"]: float(d["pricePerUnit"]["USD"]) for d in term["priceDimensions"].values()
            }
            detail = f"{a['OfferingClass']}, {a['PurchaseOption']}"
            expected[(text, f"reserved_{years}y", detail)] = pytest.approx(
                usd.get("Hrs", 0.0) + usd.get("Quantity", 0.0) / (years * 8760), rel=1e-12
            )
    assert got == expected
    assert len(got) == rows.height  # one row per item and option


def test_a_reserved_price_is_the_same_parsed_alone_or_among_other_items():
    """The upfront fee is spread over the term the same way whatever else is parsed with
    it (Polars divides by a constant differently over one row and over several)."""
    g5 = aws_price_list_item(
        instance_type="g5.xlarge", region="us-east-1", vcpus=4, memory_gib=16, gpus=1,
        on_demand=1.006, reserved={("1yr", "standard", "All Upfront"): (0.0, 5372.0)},
    )  # fmt: skip

    def reserved(*items: str) -> dict:
        rows = parse.parse(pages_frame([price_list_page(*items)]))
        p4d = rows.filter(
            (pl.col("instance_type") == "p4d.24xlarge") & (pl.col("pricing_model") != "on_demand")
        )
        return dict(zip(p4d["pricing_detail"], p4d["price_usd_per_hour"], strict=True))

    alone = reserved(p4d_item())
    assert (
        alone == reserved(p4d_item(), g5) == reserved(g5, p4d_item(), p4d_item(region="us-west-2"))
    )
