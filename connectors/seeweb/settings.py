"""Seeweb settings: the ECS plans endpoint, auth, currency, and the GPU map."""

from __future__ import annotations

PROVIDER = "seeweb"
ENDPOINT = "plans"

# GET https://api.seeweb.it/ecs/v2/plans with header `X-APITOKEN: <token>` (gpuhunt
# providers/seeweb.py; skypilot reads the same plans through Seeweb's `ecsapi` client).
PLANS_URL = "https://api.seeweb.it/ecs/v2/plans"
TOKEN_ENV = ("SEEWEB_API_TOKEN", "SEEWEB_API_KEY")

# The plans carry no currency field. Seeweb is an Italian provider whose published price
# list is in euro (seeweb.it Cloud Server GPU pricing, "€/ora"), so `hourly_price` is taken
# as EUR. The shared normalise step converts it with the recorded EUR rate
# (sql/seeds/seed_fx_rates.csv: the ECB reference rate of its date); without a EUR row
# every price is quarantined ("non-USD price in EUR and no recorded conversion rate"),
# never passed off as dollars.
SOURCE_CURRENCY = "EUR"

# `gpu_label` -> (gpu_name, marketed memory per GPU). Labels as the live API spells them
# (gpuhunt's SEEWEB_GPU_MAP, skypilot's SEEWEB_GPU_NAME_TO_SKYPILOT_GPU_NAME), matched
# case-insensitively. Not mapped on purpose (no row in sql/seeds/seed_gpu_specs.csv): A30,
# the Quadro "RTX 6000 24GB", Tenstorrent cards; gpu_name null, counted.
GPUS: dict[str, tuple[str, float]] = {
    "h200 141gb": ("H200", 141),
    "h100 80gb": ("H100", 80),
    "a100 80gb": ("A100", 80),
    "l40s 48gb": ("L40S", 48),
    "l4 24gb": ("L4", 24),
    "rtx a6000 48gb": ("RTX A6000", 48),
    "rtx pro 6000 96gb": ("RTX PRO 6000", 96),
    "mi300x": ("MI300X", 192),
}
EXCLUDE_CPU = "CPU-only plan (no GPU)"
EXCLUDE_INACTIVE = "plan not active (available false)"
EXCLUDE_NO_REGION = "plan lists no region"
