"""AWS parse of the spot price history: every point, deduplicated; the newest point
per zone is the zone's current `spot` offer."""

from __future__ import annotations

import polars as pl

from connectors.aws import settings as s
from connectors.aws.shapes import SPOT_KEY, SPOT_PAGE, SPOT_POINT_COLUMNS, _endpoint, _number, _utc
from connectors.kit.decode import explode_pages

# --- spot price history ---------------------------------------------------------------------


_SPOT_FIELDS = ("AvailabilityZone", "InstanceType", "ProductDescription", "SpotPrice", "Timestamp")


def _spot_points_all(pages: pl.DataFrame) -> pl.DataFrame:
    """Every recorded point (valid or not) once, attributed to the earliest load that
    brought it (AWS repeats the price in effect at StartTime on every incremental walk).
    Decoded once per parse: the staged points and the current offers both read it."""
    raw = _endpoint(pages, s.SPOT_HISTORY)
    if raw.is_empty():
        return pl.DataFrame(
            schema={**SPOT_POINT_COLUMNS, "source_price": pl.String, "source_timestamp": pl.String}
        )
    # decoded in parallel slices (connectors.kit.decode), the 1M-point case is ~150 MB of JSON
    # a region without a price change since its watermark answers an empty page
    items = explode_pages(raw, SPOT_PAGE, "SpotPriceHistory", allow_empty=True).join(
        raw.select("load_id", pl.col("scope").alias("region")).unique("load_id"),
        on="load_id",
        how="left",
    )
    points = items.select(
        pl.lit(s.PROVIDER).alias("provider"),
        "region",
        pl.col("AvailabilityZone").alias("zone"),
        pl.col("InstanceType").alias("instance_type"),
        pl.col("ProductDescription").alias("product_description"),
        _number(pl.col("SpotPrice")).alias("price_usd_per_hour"),
        _utc(pl.col("Timestamp")).alias("observed_at"),
        "endpoint",
        "load_id",
        "fetched_at",
        pl.lit(None, dtype=pl.String).alias("provenance"),  # the page's, set at staging
        pl.col("SpotPrice").alias("source_price"),
        pl.col("Timestamp").alias("source_timestamp"),
    )
    if raw["load_id"].n_unique() > 1:  # load ids start with the run's UTC time: sortable
        loads = points["load_id"]
        if not loads.is_sorted():
            # by each point's load among the few loads (an Enum in their order), not by
            # comparing a million strings: 0.65 -> 0.25 s cpu at 1M points
            order = sorted(loads.unique().drop_nulls().to_list())
            points = points.sort(pl.col("load_id").cast(pl.Enum(order)))
    return _first_of_each(points, SPOT_KEY)


def _first_of_each(rows: pl.DataFrame, key: list[str]) -> pl.DataFrame:
    """The first row of each `key` (as `unique(key, keep="first")`). Most keys occur once:
    the rows whose key's hash occurs once are kept as they are, and only the others (a
    walk's repeated points, and any that merely share a hash) are made unique on the key
    itself: at 1M points 0.5 -> 0.3 s cpu, a hash being cheaper to group than the key's
    four strings and time."""
    repeated = rows.select(pl.struct(key).hash().is_duplicated()).to_series()
    return pl.concat(
        [
            rows.filter(~repeated),
            rows.filter(repeated).unique(key, keep="first", maintain_order=True),
        ]
    )


def _spot_point_problem() -> pl.Expr:
    price = pl.col("price_usd_per_hour")
    return (
        # the fetch asks for Linux/UNIX only; a recording made otherwise must not publish
        # a Windows or SUSE price as the Linux spot price
        pl.when(
            ~pl.col("product_description").is_in(list(s.SPOT_PRODUCT_DESCRIPTIONS)).fill_null(True)
        )
        .then(
            pl.format(
                "ProductDescription {} is not one we price (Linux/UNIX)",
                pl.col("product_description"),
            )
        )
        .when(pl.col("observed_at").is_null())
        .then(pl.format("Timestamp {} is not ISO 8601", pl.col("source_timestamp")))
        .when(pl.col("zone").is_null() | pl.col("instance_type").is_null())
        .then(pl.lit("spot price point without AvailabilityZone or InstanceType"))
        .when(price.is_null() | price.is_nan() | (price <= 0))
        .then(pl.format("SpotPrice {} is not a positive decimal", pl.col("source_price")))
    )


def _spot_record() -> pl.Expr:
    """The point as recorded, for quarantine."""
    return pl.struct(
        pl.col("zone").alias("AvailabilityZone"),
        pl.col("instance_type").alias("InstanceType"),
        pl.col("product_description").alias("ProductDescription"),
        pl.col("source_price").alias("SpotPrice"),
        pl.col("source_timestamp").alias("Timestamp"),
    ).struct.json_encode()


def _valid_points(points: pl.DataFrame) -> pl.DataFrame:
    return points.filter(_spot_point_problem().is_null()).select(list(SPOT_POINT_COLUMNS))


def parse_spot_points(pages: pl.DataFrame) -> pl.DataFrame:
    """stg_aws__spot_prices: every valid point once."""
    return _valid_points(_spot_points_all(pages))


def _spot_offers(points: pl.DataFrame, latest: pl.DataFrame | None = None) -> pl.DataFrame:
    """The current spot offer of each (region, zone, instance type): its newest point. Points
    that are not valid prices are rejected rows (quarantine, with the reason). `latest`: the
    newest stored point of each series, when the pages hold only the ones landed since the
    last parse: the current offer is then the newest of those and of the new points (a
    new point that repeats a stored one, as every walk from the watermark does, is the
    stored one: the earlier load keeps it)."""
    points = points.with_columns(_problem=_spot_point_problem())
    valid = points.filter(pl.col("_problem").is_null())
    if latest is not None:
        stored = latest.select(list(SPOT_POINT_COLUMNS))
        valid = pl.concat(
            [
                stored.with_columns(_problem=pl.lit(None, dtype=pl.String)),
                valid.join(stored, on=SPOT_KEY, how="anti", nulls_equal=True),
            ],
            how="diagonal_relaxed",
        )
    # each series' newest row, found by its place (the rows carried through the group by
    # for every column cost 0.46 -> 0.1 s cpu at 1M points)
    newest = (
        valid.with_row_index("_row")
        .group_by("region", "zone", "instance_type")
        .agg(pl.col("_row").get(pl.col("observed_at").arg_max()))["_row"]
    )
    current = valid[newest].with_columns(status=pl.lit("ok"), reason=pl.lit(None, dtype=pl.String))
    rejected = points.filter(pl.col("_problem").is_not_null()).with_columns(
        status=pl.lit("rejected"), reason=pl.col("_problem")
    )
    both = pl.concat([current.drop("_problem"), rejected.drop("_problem")], how="diagonal_relaxed")
    return both.select(
        "provider",
        "region",
        "zone",
        "instance_type",
        pl.lit("spot").alias("pricing_model"),
        "price_usd_per_hour",
        pl.col("price_usd_per_hour").alias("source_price"),
        pl.lit("Hrs").alias("source_unit"),
        pl.col("observed_at").alias("effective_at"),
        "fetched_at",
        "load_id",
        "endpoint",
        "status",
        "reason",
        pl.when(pl.col("status") == "rejected").then(_spot_record()).alias("record"),
        pl.lit(None, dtype=pl.Float64).alias("_source_gpu"),
        pl.lit(None, dtype=pl.String).alias("_source_family"),
        pl.lit(None, dtype=pl.Float64).alias("_source_vcpus"),
        pl.lit(None, dtype=pl.Float64).alias("_source_memory_gib"),
        pl.lit(None, dtype=pl.Datetime("us")).alias("_published_at"),
    )
