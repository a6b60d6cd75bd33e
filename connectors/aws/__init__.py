"""AWS: EC2 (instance specs, spot price history, Capacity Blocks for ML offerings), the
Price List Query API and the public bulk offer CSV (on-demand and reserved list prices),
and the Spot Instance Advisor (interruption buckets). Endpoint, auth and quirks:
connectors/aws/README.md."""

from connectors._connector import APPEND, SNAPSHOT, Connector
from connectors.aws import fetch, parse, settings

# Staged entities besides the offers (declared DDL; rows inserted by name).
# Spot points: one row per (region, zone, instance_type, observed_at), deduplicated in parse
# (tested); no PRIMARY KEY, whose index upkeep cost 3-4 s per million points per refresh.
SPOT_PRICES_DDL = """CREATE TABLE IF NOT EXISTS stg_aws__spot_prices (
  provider VARCHAR NOT NULL,
  region VARCHAR NOT NULL,
  zone VARCHAR NOT NULL,
  instance_type VARCHAR NOT NULL,
  product_description VARCHAR,
  price_usd_per_hour DOUBLE NOT NULL,
  observed_at TIMESTAMP NOT NULL,
  endpoint VARCHAR NOT NULL,
  load_id VARCHAR NOT NULL,
  fetched_at TIMESTAMP NOT NULL
)"""
INSTANCE_TYPES_DDL = """CREATE TABLE IF NOT EXISTS stg_aws__instance_types (
  instance_type VARCHAR PRIMARY KEY,
  gpu_name VARCHAR,
  gpu_manufacturer VARCHAR,
  gpu_memory_gib DOUBLE,
  gpu_count DOUBLE,
  vcpus DOUBLE,
  memory_gib DOUBLE,
  accelerator VARCHAR,              -- gpu | neuron | null (not accelerated)
  source VARCHAR NOT NULL,          -- describe_instance_types | bundled
  load_id VARCHAR,
  fetched_at TIMESTAMP
)"""
SPOT_ADVISOR_DDL = """CREATE TABLE IF NOT EXISTS stg_aws__spot_advisor (
  provider VARCHAR NOT NULL,
  region VARCHAR NOT NULL,
  os VARCHAR NOT NULL,
  instance_type VARCHAR NOT NULL,
  interruption_bucket VARCHAR,      -- the feed's label: <5%, 5-10%, 10-15%, 15-20%, >20%
  interruption_rate_max_pct DOUBLE, -- the label's upper bound: 5, 10, 15, 20, 100
  savings_pct DOUBLE,
  load_id VARCHAR NOT NULL,
  fetched_at TIMESTAMP NOT NULL
)"""

CONNECTOR = Connector(
    name=settings.PROVIDER,
    endpoints={
        settings.INSTANCE_TYPES: SNAPSHOT,
        settings.SPOT_HISTORY: APPEND,
        settings.PRICE_LIST: SNAPSHOT,
        settings.OFFER_CSV: SNAPSHOT,
        settings.SPOT_ADVISOR: SNAPSHOT,
        settings.CAPACITY_BLOCKS: SNAPSHOT,
        settings.SAVINGS_PLANS: SNAPSHOT,
    },
    fetch_live=fetch.fetch_live,
    parse=parse.parse,
    extra_staging={
        "stg_aws__spot_prices": (SPOT_PRICES_DDL, parse.parse_spot_points),
        "stg_aws__instance_types": (INSTANCE_TYPES_DDL, parse.instance_specs),
        "stg_aws__spot_advisor": (SPOT_ADVISOR_DDL, parse.parse_spot_advisor),
    },
    append_staging={
        settings.SPOT_HISTORY: (
            "stg_aws__spot_prices",
            tuple(parse.SPOT_KEY),
            ("region", "zone", "instance_type"),
        ),
    },
)
