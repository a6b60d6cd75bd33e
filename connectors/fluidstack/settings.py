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

# `gpu_type` ("H100_SXM5_80GB", "RTX_A6000_48GB") -> gpu_name; memory per GPU is the
# "<n>GB" suffix (marketed). Types as skypilot's GPU_MAP lists them. Not mapped on purpose
# (no row in sql/seeds/seed_gpu_specs.csv): A30, the Quadro RTX 4000/5000/6000, RTX 3080;
# gpu_name null, counted.
GPUS: dict[str, str] = {
    "H100_PCIE_80GB": "H100",
    "H100_SXM5_80GB": "H100",
    "H100_NVLINK_80GB": "H100",
    "A100_PCIE_80GB": "A100",
    "A100_NVLINK_80GB": "A100",
    "A100_SXM4_80GB": "A100",
    "A100_SXM4_40GB": "A100",
    "A100_PCIE_40GB": "A100",
    "Tesla_V100_SXM2_16GB": "V100",
    "Tesla_V100_PCIE_16GB": "V100",
    "A10_PCIE_24GB": "A10",
    "A40_48GB": "A40",
    "L40_48GB": "L40",
    "T4_16GB": "T4",
    "RTX_A6000_48GB": "RTX A6000",
    "RTX_A5000_24GB": "RTX A5000",
    "RTX_A4000_16GB": "RTX A4000",
    "RTX_3090_24GB": "RTX 3090",
}
MEMORY_PATTERN = r"_(\d+)GB$"
