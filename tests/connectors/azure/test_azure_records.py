"""The refresh's Azure parse decodes only the item fields its rules read (parse.READ),
prices as numbers where that reads what their text did (parse.NUMBERS_PAGE); a
rejected item is quarantined whole all the same: its record is the item read again from
its page with the full declared schema (parse.ITEM), exactly the record a parse that
decoded every field of every item quarantined."""

from __future__ import annotations

import json

import polars as pl
import pytest

from connectors.azure import CONNECTOR, parse
from connectors.kit import decode
from connectors.kit.normalise import normalise
from tests.connectors.azure.test_azure_parse import item, retail_pages


def quarantined(pages: pl.DataFrame) -> pl.DataFrame:
    """What the refresh quarantines from these pages (Connector.parse, then the shared
    rules with the parse's record reader), by meterId."""
    parsed = CONNECTOR.parse(pages)
    assert "_item" not in parsed.offers.columns and "_at" in parsed.offers.columns
    rejected = normalise(parsed.offers, parsed.records).rejected
    return rejected.with_columns(
        meter=pl.col("record").str.json_path_match("$.meterId")
    ).sort("meter")


def whole_items(pages: pl.DataFrame) -> dict[str, str]:
    """Each item as a parse that kept every item whole quarantined it: its struct as the
    full declared schema decodes it, written as JSON, by meterId."""
    items = (
        pages.select(pl.col("payload").str.json_decode(parse.RETAIL_PAGE).struct.field("Items"))
        .explode("Items")
        .select(pl.col("Items").struct.json_encode())
        .to_series()
    )
    return {json.loads(text)["meterId"]: text for text in items}


BAD_ITEMS = [  # (the item's fields, the reason it is quarantined with)
    ({"retailPrice": "27.197"}, None),  # a price as a numeric text: read as the number
    ({"retailPrice": True}, "retailPrice true is not a number"),
    ({"retailPrice": False}, "retailPrice false is not a number"),
    ({"retailPrice": 0}, "price 0.0 USD/h is not positive"),
    ({"retailPrice": 1}, None),  # a number, not `true`
    ({"retailPrice": "free"}, "retailPrice free is not a number"),
    ({"retailPrice": None}, "missing field retailPrice"),
    ({"retailPrice": -1.0}, "price -1.0 USD/h is not positive"),
    ({"type": "DevTestReservation"}, "unknown price type DevTestReservation"),
    ({"unitOfMeasure": "1/Month"}, "unit of measure 1/Month is not hourly"),
    (
        {"effectiveStartDate": "2999-01-01T00:00:00Z"},
        "effective date 2999-01-01 is more than 400 days after the fetch (2026-11-20): "
        "a placeholder or a data error, not a price in force",
    ),
]


def test_a_rejected_items_record_is_the_whole_item_as_before():
    items = [item(meterId=f"m{i}", **fields) for i, (fields, _) in enumerate(BAD_ITEMS)]
    pages = retail_pages({"Items": [item(meterId="good"), *items[:4]]}, {"Items": items[4:]})
    rejected = quarantined(pages)
    expected = {f"m{i}": reason for i, (_, reason) in enumerate(BAD_ITEMS) if reason}
    assert dict(zip(rejected["meter"], rejected["reason"], strict=True)) == expected
    whole = whole_items(pages)
    assert rejected["record"].to_list() == [whole[m] for m in rejected["meter"]]
    # each record holds the fields no rule reads, as they were
    record = json.loads(rejected["record"][0])
    assert {"meterId", "productId", "skuId", "location", "unitPrice"} <= record.keys()


@pytest.mark.parametrize("field", ["retailPrice", "productId", "location", "unitPrice"])
def test_an_object_in_any_text_field_is_quarantined_with_its_value(field):
    """The rules do not read `location` or `unitPrice`: an object there is quarantined
    all the same, with the same record, as when every field was decoded."""
    bad = item(meterId="bad", **{field: {"amount": 1}})
    pages = retail_pages({"Items": [item(meterId="good"), bad]}, {"Items": [item(meterId="x")]})
    rejected = quarantined(pages)
    assert rejected["reason"].to_list() == [f"{field} holds an object or a list, not a value"]
    record = json.loads(rejected["record"][0])
    assert json.loads(record[field]) == {"amount": 1} and record["_malformed"] == field
    assert record == json.loads(parse.parse(pages).filter(
        pl.col("status") == "rejected")["_item"].struct.json_encode()[0])  # fmt: skip


def test_a_list_in_a_field_no_rule_reads_is_quarantined_too():
    pages = retail_pages({"Items": [item(meterId="good"), item(skuId=["a", "b"])]})
    assert quarantined(pages)["reason"].to_list() == [
        "skuId holds an object or a list, not a value"
    ]


def test_healthy_pages_decode_only_the_fields_the_rules_read_prices_as_numbers(monkeypatch):
    used = []
    explode = decode.explode_pages

    def spy(pages, dtype, *args, **kwargs):
        used.append(dtype)
        return explode(pages, dtype, *args, **kwargs)

    monkeypatch.setattr(parse, "explode_pages", spy)
    sp = {"unitPrice": 15.77, "retailPrice": 15.77, "term": "1 Year"}
    pages = retail_pages({"Items": [item(), item(savingsPlan=[sp, sp]), item(savingsPlan=[])]})
    assert CONNECTOR.parse(pages).offers.height == 5  # 3 items and 2 plans
    assert used == [parse.NUMBERS_PAGE]  # the prices decoded as numbers
    used.clear()
    # a boolean price decodes as a number (true as 1.0): such a page's prices are read as
    # text, and the item is rejected as not a number, as ever
    plan = {**sp, "retailPrice": True}
    pages = retail_pages({"Items": [item(), item(meterId="bad", savingsPlan=[sp, plan])]})
    parsed = CONNECTOR.parse(pages)
    assert used == [parse.NUMBERS_PAGE, parse.READ_PAGE]
    rejected = normalise(parsed.offers, parsed.records).rejected
    assert rejected["reason"].to_list() == ["savingsPlan retailPrice true is not a number"]
    assert rejected["record"].to_list() == [whole_items(pages)["bad"]]


@pytest.mark.parametrize(
    "fields",
    [
        {"productName": "Virtual Machines {preview} [NC]"},  # braces in a text
        {"aBrandNewField": {"nested": [1]}},  # a field we do not know holding an object
    ],
)
def test_pages_the_narrow_decode_cannot_vouch_for_parse_the_same(fields, monkeypatch):
    pages = retail_pages({"Items": [item(**fields), item(retailPrice="x", meterId="bad")]})
    located = CONNECTOR.parse(pages)
    result = normalise(located.offers, located.records)
    assert result.offers.height == 1
    assert result.rejected["record"].to_list() == [whole_items(pages)["bad"]]


def test_located_rows_without_their_record_reader_are_refused():
    parsed = CONNECTOR.parse(retail_pages({"Items": [item()]}))
    with pytest.raises(ValueError, match="records"):
        normalise(parsed.offers)
