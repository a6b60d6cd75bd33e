"""Hot Aisle settings: the available-VMs endpoint, auth, and the GPU map."""

from __future__ import annotations

PROVIDER = "hotaisle"
ENDPOINT = "available_vms"

# GET {api}/teams/{team_handle}/virtual_machines/available/ with `Authorization: Token
# <key>` (API reference admin.hotaisle.app/api/docs, as gpuhunt providers/hotaisle.py
# calls it): a bare list of VM configurations with `OnDemandPrice` in US cents per hour.
API_URL = "https://admin.hotaisle.app/api"
AVAILABLE_PATH = "/teams/{team}/virtual_machines/available/"
API_KEY_ENV = "HOTAISLE_API_KEY"
TEAM_ENV = "HOTAISLE_TEAM_HANDLE"

# Hot Aisle runs one location (gpuhunt hard-codes "us-michigan-1": "HotAisle only has one
# location"); the API carries no region field.
REGION = "us-michigan-1"

# `Specs.gpus[0].model` ("MI300X") is handed over as the source's GPU words: the shared GPU
# rule (common/gpu.py) names it (MI300X, MI325X); one the reference lacks (MI355X)
# stays null, counted.
CENTS_PER_USD = 100
