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

# Cloud GPU plans: `gpu_type` ("NVIDIA_A100", "AMD_MI300X") is handed over as the source's
# GPU words; the shared GPU rule (common/gpu.py) gives the GPU and its memory
# (Vultr's A100s are the 80 GB part: a row of sql/seeds/seed_instance_families.csv).
# `gpu_vram_gb` is the plan's total; a plan with less than one whole GPU of memory
# (vcg-a100-1c-6g-4vram: 4 GB of an 80 GB A100) is a fractional vGPU share. A GPU the
# reference lacks (MI355X) keeps gpu_name null, counted.
EXCLUDE_FRACTIONAL = "fractional GPU (a vGPU share of less than one whole GPU's memory)"
EXCLUDE_NOT_GPU_PLAN = "not a Cloud GPU plan (type is not vcg)"

# Bare-metal plan ids carry the GPU: "vbm-112c-2048gb-8-h100-gpu" = 8 GPUs of token
# "h100"; "vbm-72c-480gb-gh200-gpu" has no count (one GH200). The token is handed over as
# the source's GPU words; "l40" plans are L40S machines and "a100" plans the 80 GB part
# (gpuhunt providers/vultr.py BARE_METAL_GPU_DETAILS): rows of the instance-family seed.
METAL_GPU_PATTERN = r"^vbm-\d+c-\d+gb-(?:(\d+)-)?([a-z0-9]+)-gpu$"
EXCLUDE_CPU_METAL = "CPU bare-metal plan (no GPU in its id)"
PREEMPTIBLE_DETAIL = "preemptible bare metal"
FREE_PLAN = "plan priced 0 (free tier), not a GPU rental"
