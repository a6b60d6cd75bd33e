"""Vultr settings: the public plan lists, paging, and the GPU maps."""

from __future__ import annotations

PROVIDER = "vultr"
PLANS = "plans"
PLANS_METAL = "plans_metal"

# Vultr API v2 (vultr.com/api): "List Plans" GET /v2/plans and "List Bare Metal Plans"
# GET /v2/plans-metal. Listing plans needs no API key (gpuhunt providers/vultr.py calls
# both without one). Cursor paging: `per_page` (default 100, max 500) and `cursor`; the
# next cursor is `meta.links.next` ("" on the last page).
API_URL = "https://api.vultr.com/v2"
ENDPOINTS: dict[str, tuple[str, dict]] = {
    # request-side filter: only Cloud GPU plans (`type=vcg`); CPU plan types are not asked
    PLANS: ("/plans", {"type": "vcg", "per_page": 500}),
    PLANS_METAL: ("/plans-metal", {"per_page": 500}),
}
LIST_KEYS = {PLANS: "plans", PLANS_METAL: "plans_metal"}
MAX_PAGES = 20

# Cloud GPU plans: `gpu_type` ("NVIDIA_A100", "AMD_MI300X") -> (gpu_name, marketed memory
# per GPU in GiB). `gpu_vram_gb` is the plan's total; a plan with less than one whole GPU
# of memory (vcg-a100-1c-6g-4vram: 4 GB of an 80 GB A100) is a fractional vGPU share.
# Vultr's A100s are the 80 GB part (gpuhunt providers/vultr.py). Not mapped on purpose
# (no row in sql/seeds/seed_gpu_specs.csv): MI325X, MI355X; gpu_name null, counted.
VCG_GPUS: dict[str, tuple[str, float]] = {
    "NVIDIA_A100": ("A100", 80),
    "NVIDIA_A40": ("A40", 48),
    "NVIDIA_A16": ("A16", 16),
    "NVIDIA_L40S": ("L40S", 48),
    "NVIDIA_H100": ("H100", 80),
    "NVIDIA_H200": ("H200", 141),
    "NVIDIA_B200": ("B200", 180),
    "NVIDIA_GH200": ("GH200", 96),
    "AMD_MI300X": ("MI300X", 192),
    "AMD_MI325X": ("MI325X", 256),
}
EXCLUDE_FRACTIONAL = "fractional GPU (a vGPU share of less than one whole GPU's memory)"
EXCLUDE_NOT_GPU_PLAN = "not a Cloud GPU plan (type is not vcg)"

# Bare-metal plan ids carry the GPU: "vbm-112c-2048gb-8-h100-gpu" = 8 GPUs of token
# "h100"; "vbm-72c-480gb-gh200-gpu" has no count (one GH200). Token -> (gpu_name, memory).
# "l40" plans are L40S machines (gpuhunt providers/vultr.py BARE_METAL_GPU_DETAILS).
METAL_GPU_PATTERN = r"^vbm-\d+c-\d+gb-(?:(\d+)-)?([a-z0-9]+)-gpu$"
METAL_GPUS: dict[str, tuple[str, float]] = {
    "a100": ("A100", 80),
    "h100": ("H100", 80),
    "h200": ("H200", 141),
    "b200": ("B200", 180),
    "l40": ("L40S", 48),
    "gh200": ("GH200", 96),
    "mi300x": ("MI300X", 192),
}
EXCLUDE_CPU_METAL = "CPU bare-metal plan (no GPU in its id)"
PREEMPTIBLE_DETAIL = "preemptible bare metal"
FREE_PLAN = "plan priced 0 (free tier), not a GPU rental"
