"""JarvisLabs settings: the server-meta endpoint and auth."""

from __future__ import annotations

PROVIDER = "jarvislabs"
ENDPOINT = "server_meta"

# GET {api}/misc/server_meta, bearer API key: per GPU type and region, the price per GPU
# hour, spot price, VRAM, vCPUs and RAM per GPU (gpuhunt providers/jarvislabs.py and its
# tests/providers/test_jarvislabs.py, dstackai/gpuhunt@35841515).
SERVER_META_URL = "https://backendn.jarvislabs.net/misc/server_meta"
API_KEY_ENV = ("JL_API_KEY", "JARVISLABS_API_KEY")

# `gpu_type` ("A100-80GB", "A6000", "RTX-PRO6000" and "RTX PRO 6000" for the same card, as
# the API spells them) is handed over as the source's GPU words with the `vram` it states:
# the shared GPU rule (common/gpu.py) names them; a GPU the reference lacks stays
# null, counted.

# Rows come per workload: "vm", "container", or null (older VM-capable rows, e.g. the
# EU H100/H200: gpuhunt provisioned a VM from one). The same GPU and region can be listed
# for both, so the workload is the pricing_detail of the offer. Spot prices apply to
# containers only ("JarvisLabs supports spot for containers/templates, not VMs", gpuhunt).
NULL_WORKLOAD = "vm"
