"""A recorded page's statement of where its prices come from, and the one rule that applies
it to the offers parsed from the page.

A live page says nothing: its prices are the provider's own (provenance `api`, set by the
shared normalise step). A snapshot page may say otherwise in its envelope, next to
`fetched_at` and `request` (docs/snapshot-format.md):

    "provenance": {"default": "illustrative",
                   "api": [{"instance_type": "p4d.24xlarge", "pricing_model": "on_demand"}]}

`default` is the provenance of every price parsed from the page (a value of
`common.schemas.PROVENANCES`), except the offers an `api` selector matches (every key of a
selector equal: `region`, `zone`, `instance_type`, `pricing_model`, `pricing_detail`), whose
prices are real values copied from a public source. The bundled demo marks its invented
values so (connectors/demo_snapshot/README.md): an illustrative price never passes for a
real one, and rankings, estimates, plans and alerts leave it out unless asked for
(`--include-illustrative`; the rule is sql/intermediate/int_provenances.sql).

A spot price series (a staged table with a `Series`: AWS spot price history) is stated the
same way, point by point (`apply_points`): its points are in no statistic, band or history
unless they count (sql/intermediate/int_spot_prices_unioned.sql).

The statement is part of the page: it is stored with the page in the ledger
(`_load_pages.provenance`), covered by the page's sha256, and written back by
`snapshot export`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from common.errors import InvalidInput
from common.schemas import PROVENANCES, canonical_json

if TYPE_CHECKING:
    import polars as pl

SELECTOR_KEYS = ("region", "zone", "instance_type", "pricing_model", "pricing_detail")


def check(value: Any, where: object) -> dict[str, Any] | None:
    """The statement as a page carries it (None: the page says nothing), or one
    InvalidInput naming the file and the problem."""
    if value is None:
        return None
    problem = None
    if not isinstance(value, Mapping) or set(value) - {"default", "api"}:
        problem = 'expected an object with "default" and optionally "api"'
    elif value.get("default") not in PROVENANCES:
        problem = f"default must be one of {', '.join(PROVENANCES)}, got {value.get('default')!r}"
    elif not isinstance(value.get("api", []), list) or not all(
        isinstance(s, Mapping)
        and s
        and set(s) <= set(SELECTOR_KEYS)
        and all(isinstance(v, str) for v in s.values())
        for s in value.get("api", [])
    ):
        problem = (
            f"api must be a list of objects of text values keyed by {', '.join(SELECTOR_KEYS)}"
        )
    if problem:
        raise InvalidInput(f"snapshot file {where}: provenance: {problem}")
    return {"default": value["default"], "api": [dict(s) for s in value.get("api", [])]}


def text(statement: Mapping[str, Any] | None) -> str | None:
    """The stored form of a statement (canonical JSON), None for a page that says nothing."""
    return None if statement is None else canonical_json(statement)


def apply(offers: pl.DataFrame, pages: pl.DataFrame) -> pl.DataFrame:
    """The offers with each page's statement applied: `pages` holds `load_id` and
    `provenance` (stored text, null where a page says nothing), one row per page; an offer
    is matched to the statements of its load (the load that first stored its page). An
    offer whose provider priced it (`api`) takes the statement's `default` unless an `api`
    selector matches it; a sheet row's own provenance is kept. Loops over the statements
    (a handful per snapshot) and the kinds of selector (the keys they name), never over
    offers: the selectors of one kind are a table the offers are joined to (the demo's AWS
    pages name 338)."""
    import polars as pl

    if "provenance" not in pages.columns or offers.is_empty():
        return offers
    stated = pages.filter(pl.col("provenance").is_not_null()).select("load_id", "provenance")
    if stated.is_empty():
        return offers
    defaults: dict[str, str] = {}
    by_keys: dict[tuple[str, ...], list[dict[str, str]]] = {}
    for load_id, texts in stated.group_by("load_id").agg("provenance").iter_rows():
        statements = [json.loads(t) for t in set(texts)]
        # pages of one load that say different things: the most cautious default wins
        # (any page not priced by the provider makes the load's unmatched offers so)
        cautious = [s["default"] for s in statements if s["default"] != "api"]
        defaults[load_id] = cautious[0] if cautious else "api"
        for selector in (sel for s in statements for sel in s["api"]):
            by_keys.setdefault(tuple(sorted(selector)), []).append({**selector, "load_id": load_id})
    named = sorted({key for keys in by_keys for key in keys})
    keyed = offers.select(pl.col("load_id", *named).cast(pl.String)).with_row_index("_offer")
    # the offers an `api` selector of their load matches (every key equal; a null never is)
    real = [
        keyed.join(
            pl.DataFrame(rows, schema=dict.fromkeys(("load_id", *keys), pl.String)),
            on=["load_id", *keys],
            how="semi",
        ).get_column("_offer")
        for keys, rows in by_keys.items()
    ]
    matched = pl.concat(real) if real else pl.Series("_offer", [], dtype=pl.UInt32)
    default = pl.col("load_id").cast(pl.String).replace_strict(defaults, default=None)
    unmatched = ~pl.int_range(pl.len(), dtype=pl.UInt32).is_in(matched.implode())
    return offers.with_columns(
        pl.when((pl.col("provenance") == "api") & default.is_not_null() & unmatched)
        .then(default)
        .otherwise(pl.col("provenance"))
        .alias("provenance")
    )


def provider_own(provenance: pl.Expr) -> pl.Expr:
    """A price a source hands over with no statement of its own is the provider's own
    (`api`): the parse's default for offers (connectors.kit.normalise) and for the points
    of a spot series (`apply_points`)."""
    return provenance.fill_null("api")


def apply_points(points: pl.DataFrame, pages: pl.DataFrame | None) -> pl.DataFrame:
    """The points of a spot price series (a staged table with a `Series`: AWS spot price
    history) with `provenance` set as an offer's is (`apply`): the provider's own ('api')
    unless the statement of the page a point came from (its `load_id`) says otherwise, a
    selector matched on the point's region, zone and instance type with pricing model
    `spot`. The bundled demo's invented spot points are so marked `illustrative`. `pages`
    None (no page states anything): every point is the provider's own."""
    import polars as pl

    if points.is_empty():
        return points.with_columns(pl.col("provenance").cast(pl.String))
    stated = points.with_columns(
        provenance=provider_own(pl.col("provenance").cast(pl.String)),
        pricing_model=pl.lit("spot"),
        pricing_detail=pl.lit(None, dtype=pl.String),
    )
    if pages is not None:
        stated = apply(stated, pages)
    return stated.drop("pricing_model", "pricing_detail")
