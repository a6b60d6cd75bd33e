"""The usable-offer rule over an offers frame a caller hands in (the planner's
`offers_frame`): the warehouse's own SQL, run in an in-memory DuckDB, so a frame keeps
exactly the rows the warehouse would keep; and the flags' rule over another relation of
the warehouse (`flagged_over`: the plausibility check's incoming offers).

The files are those a refresh builds: `int_provenances` (the provenance vocabulary),
`int_offers_flagged` (is_verified and is_comparable, their one home) over the frame as the
price periods of `snp_offers_history`, and `int_offers_usable` (the filter on both) over
the open ones as `int_offers_current` (the variant choice and `cheapest_order` of the
warehouse do not apply to a frame: its rows are its offers, its order theirs). A frame
without `provenance`, `host_included` or `valid_to` has none stated (null: 'api', a whole
machine, an open price), as a connector row without them has in the warehouse.
"""

from __future__ import annotations

import duckdb
import polars as pl

from warehouse import lineage, sql_runner

ROW = "__offer_row"
# the columns the flags read, with their warehouse types, added as null where a frame lacks
STATED = {
    "provenance": pl.String,
    "host_included": pl.Boolean,
    "valid_to": pl.Datetime("us", "UTC"),
}


def flagged_over(relation: str) -> str:
    """A subquery: int_offers_flagged's SELECT (the flags' one home) over `relation`, a
    relation of the warehouse with the offer columns, in place of snp_offers_history."""
    body = lineage.select_of(sql_runner.view_files()["int_offers_flagged"])
    return f"(\nWITH snp_offers_history AS (SELECT * FROM {relation})\n{body}\n)"


def usable(offers: pl.DataFrame) -> pl.DataFrame:
    """The rows of `offers` (gpu_name, price_usd_per_gpu_hour and the STATED columns, any
    others kept as they are) that int_offers_usable keeps, in their order."""
    files = sql_runner.view_files()
    needed = offers.select(
        pl.int_range(pl.len(), dtype=pl.UInt32).alias(ROW),
        pl.col("gpu_name").cast(pl.String),
        pl.col("price_usd_per_gpu_hour").cast(pl.Float64),
        *(
            (pl.col(name) if name in offers.columns else pl.lit(None)).cast(dtype).alias(name)
            for name, dtype in STATED.items()
        ),
    )
    con = duckdb.connect(":memory:")
    try:
        con.register("snp_offers_history", needed)
        for name in ("int_provenances", "int_offers_flagged"):
            body = lineage.select_of(files[name])
            con.execute(f"CREATE VIEW {name} AS\n{body}")
        con.execute(
            "CREATE VIEW int_offers_current AS "
            "SELECT * FROM int_offers_flagged WHERE valid_to IS NULL"
        )
        body = lineage.select_of(files["int_offers_usable"])
        kept = con.sql(f"SELECT {ROW} FROM (\n{body}\n)").pl()
    finally:
        con.close()
    return offers.with_row_index(ROW).join(kept, on=ROW, how="semi").drop(ROW)
