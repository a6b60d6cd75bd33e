"""The constants the cost formulas share with the SQL models, defined once.

They live in `sql/seeds/seed_conventions.csv` (one row; its README says what each means
and where it comes from): the SQL models read the seed table, and the formulas here read
the same file, so a month or a memory rule cannot differ between the two.
"""

from __future__ import annotations

import csv
from pathlib import Path

SEED = Path(__file__).resolve().parent.parent / "sql" / "seeds" / "seed_conventions.csv"


def _load(path: Path = SEED) -> dict[str, float]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    if len(rows) != 1:
        raise ValueError(f"{path}: expected one row of conventions, found {len(rows)}")
    return {name: float(value) for name, value in rows[0].items()}


CONVENTIONS = _load()

HOURS_PER_MONTH = CONVENTIONS["hours_per_month"]
HOURS_PER_YEAR = CONVENTIONS["hours_per_year"]
BYTES_PER_GIB = CONVENTIONS["bytes_per_gib"]
TRAINING_FLOPS_PER_PARAM_PER_TOKEN = CONVENTIONS["training_flops_per_param_per_token"]
TRAINING_BYTES_PER_PARAM = CONVENTIONS["training_bytes_per_param"]
SERVING_BYTES_PER_PARAM = CONVENTIONS["serving_bytes_per_param"]
SERVING_HEADROOM = CONVENTIONS["serving_headroom"]
DEFAULT_MFU = CONVENTIONS["default_mfu"]
# the serving roofline's default shares of peak (the other serving constants are read by
# the table macro serving_roofline from the seed table itself)
DECODE_BANDWIDTH_SHARE = CONVENTIONS["decode_bandwidth_share"]
DECODE_COMPUTE_SHARE = CONVENTIONS["decode_compute_share"]
# the whole cost of owning (models.breakeven.owning_costs, the breakeven_onprem macro)
POWER_USD_PER_KWH = CONVENTIONS["power_usd_per_kwh"]
PUE = CONVENTIONS["pue"]
HOST_WATTS_PER_GPU = CONVENTIONS["host_watts_per_gpu"]
HOST_CAPEX_SHARE = CONVENTIONS["host_capex_share"]
OPS_SHARE_OF_CAPEX_PER_YEAR = CONVENTIONS["ops_share_of_capex_per_year"]
