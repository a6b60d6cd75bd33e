"""JarvisLabs settings: the server-meta endpoint, auth, and the GPU map."""

from __future__ import annotations

PROVIDER = "jarvislabs"
ENDPOINT = "server_meta"

# GET {api}/misc/server_meta, bearer API key: per GPU type and region, the price per GPU
# hour, spot price, VRAM, vCPUs and RAM per GPU (gpuhunt providers/jarvislabs.py and its
# tests/providers/test_jarvislabs.py, dstackai/gpuhunt@35841515).
SERVER_META_URL = "https://backendn.jarvislabs.net/misc/server_meta"
API_KEY_ENV = ("JL_API_KEY", "JARVISLABS_API_KEY")

# `gpu_type` -> (gpu_name, marketed memory per GPU). Tokens as the API spells them
# ("A100-80GB", "RTX-PRO6000" and "RTX PRO 6000" for the same card: gpuhunt's reviewed
# overrides). Not mapped on purpose: anything else (gpu_name null, counted).
GPUS: dict[str, tuple[str, float]] = {
    "H100": ("H100", 80),
    "H200": ("H200", 141),
    "A100": ("A100", 40),
    "A100-80GB": ("A100", 80),
    "L4": ("L4", 24),
    "L40S": ("L40S", 48),
    "A6000": ("RTX A6000", 48),
    "A5000": ("RTX A5000", 24),
    "RTX-PRO6000": ("RTX PRO 6000", 96),
    "RTX PRO 6000": ("RTX PRO 6000", 96),
}

# Rows come per workload: "vm", "container", or null (older VM-capable rows, e.g. the
# EU H100/H200: gpuhunt provisioned a VM from one). The same GPU and region can be listed
# for both, so the workload is the pricing_detail of the offer. Spot prices apply to
# containers only ("JarvisLabs supports spot for containers/templates, not VMs", gpuhunt).
NULL_WORKLOAD = "vm"
