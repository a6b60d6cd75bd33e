"""FluidStack settings: the configurations endpoint, auth, and the GPU type map."""

from __future__ import annotations

PROVIDER = "fluidstack"
ENDPOINT = "configurations"

# GET https://platform.fluidstack.io/list_available_configurations with header
# `api-key: <key>`: a bare list of {gpu_type, gpu_counts, price_per_gpu_hr, regions}
# (skypilot sky/catalog/data_fetchers/fetch_fluidstack.py). This is FluidStack's platform
# API of the on-demand era; FluidStack took its public price list down by 2026-08 (see
# connectors/sheets/sheets/fluidstack_illustrative.csv), so the endpoint may answer
# nothing for new accounts.
CONFIGURATIONS_URL = "https://platform.fluidstack.io/list_available_configurations"
API_KEY_ENV = "FLUIDSTACK_API_KEY"
API_KEY_HEADER = "api-key"

# `gpu_type` ("H100_SXM5_80GB", "RTX_A6000_48GB", types as skypilot's GPU_MAP lists them)
# is handed over as the source's GPU words: the shared GPU rule (common/gpu.py)
# reads the name, the "<n>GB" memory and the PCIE / SXM form factor from it. Types whose
# GPU the reference lacks (A30, Quadro RTX 4000/5000, RTX 3080) keep gpu_name null, counted.
