"""Crusoe settings: the VM-types and capacities endpoints, request signing, and the
published per-GPU-hour price table (the API lists no prices)."""

from __future__ import annotations

PROVIDER = "crusoe"
VM_TYPES = "vm_types"
CAPACITIES = "capacities"

# Crusoe Cloud API v1alpha5, as gpuhunt providers/crusoe.py calls it
# (dstackai/gpuhunt@35841515): GET /v1alpha5/projects/{project_id}/compute/vms/types ->
# {"items": [{product_name, gpu_type, num_gpu, cpu_cores, memory_gb, disk_gb, cpu_type}]}
# and GET /v1alpha5/capacities -> {"items": [{type, location, quantity}]}.
API_URL = "https://api.crusoecloud.com"
API_VERSION = "/v1alpha5"
VM_TYPES_PATH = "/projects/{project}/compute/vms/types"
CAPACITIES_PATH = "/capacities"

# Request signing (signature version 1.0): HMAC-SHA256, keyed with the URL-safe base64
# decoded secret key, over "<API_VERSION><path>\n<sorted query>\n<METHOD>\n<timestamp>\n";
# sent as `Authorization: Bearer 1.0:<access key>:<URL-safe base64 signature, unpadded>`
# with the timestamp (UTC, seconds, "YYYY-MM-DDTHH:MM:SS+00:00") in `X-Crusoe-Timestamp`.
SIGNATURE_VERSION = "1.0"
ACCESS_KEY_ENV = "CRUSOE_ACCESS_KEY"
SECRET_KEY_ENV = "CRUSOE_SECRET_KEY"
PROJECT_ENV = "CRUSOE_PROJECT_ID"

# The API has no price field. Per-GPU-hour list prices, on demand and spot, from
# crusoe.ai/cloud/pricing as transcribed in gpuhunt providers/crusoe.py GPU_PRICING
# (dstackai/gpuhunt@35841515, committed 2026-08-19). `gpu_type` -> (on demand, spot or
# None). gpuhunt's B200 figure is its own estimate ("estimated from B200/H100 ratio"),
# not a published price, so B200 is not here; neither are GB200 and MI355X (no published
# price). Types without a price are excluded with a reason, never priced by guess.
PRICES_AS_OF = "2026-08-19"
PRICES_SOURCE = "crusoe.ai/cloud/pricing"
GPU_PRICES: dict[str, tuple[str, str | None]] = {
    "A100-PCIe-40GB": ("1.45", "1.00"),
    "A100-PCIe-80GB": ("1.65", "1.20"),
    "A100-SXM-80GB": ("1.95", "1.30"),
    "H100-SXM-80GB": ("3.90", "1.60"),
    "H200-SXM-141GB": ("4.29", None),
    "L40S-48GB": ("1.00", "0.50"),
    "A40-PCIe-48GB": ("0.90", "0.40"),
    "MI300X-192GB": ("3.45", "0.95"),
}
# `gpu_type` (gpuhunt's GPU_TYPE_MAP keys: "H100-SXM-80GB", "A100-PCIe-40GB") is handed over
# as the source's GPU words: the shared GPU rule (common/gpu.py) reads the name,
# memory and form factor from it (GB200 and MI355X: GB200 named, MI355X null, counted).
SPOT_DETAIL = "spot (published price)"
EXCLUDE_CPU = "CPU-only VM type (no GPU)"
EXCLUDE_NO_PRICE = "no published price for this GPU type"
EXCLUDE_NO_CAPACITY = "no location lists capacity for this VM type"
