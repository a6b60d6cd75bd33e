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

# `gpu_label` ("H100 80GB", "MI300X"; as the live API spells them, gpuhunt's SEEWEB_GPU_MAP,
# skypilot's SEEWEB_GPU_NAME_TO_SKYPILOT_GPU_NAME) is handed over as the source's GPU words:
# the shared GPU rule (common/gpu.py) reads the name and memory. Cards the reference
# lacks (A30, Tenstorrent) keep gpu_name null, counted.
EXCLUDE_CPU = "CPU-only plan (no GPU)"
EXCLUDE_INACTIVE = "plan not active (available false)"
EXCLUDE_NO_REGION = "plan lists no region"
