"""CloudRift settings: the instance-types RPC and its request body."""

from __future__ import annotations

PROVIDER = "cloudrift"
ENDPOINT = "instance_types"

# POST {server}/api/v1/instance-types/list with {"version": <API version>, "data":
# {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}}}; the answer is
# {"data": {"instance_types": [...]}}. As gpuhunt's providers/cloudrift.py calls it
# (API version 2025-03-21, no credentials) and skypilot's
# sky/catalog/data_fetchers/fetch_cloudrift.py reads it.
INSTANCE_TYPES_URL = "https://api.cloudrift.ai/api/v1/instance-types/list"
API_VERSION = "2025-03-21"
REQUEST = {
    "version": API_VERSION,
    "data": {"selector": {"ByServiceAndLocation": {"services": ["vm"]}}},
}

# `brand_short` names the GPU ("RTX 4090", "RTX PRO 6000", "MI350X"): handed over as the
# source's GPU words, named by the shared GPU rule (common/gpu.py); one the
# reference lacks (MI350X) stays gpu_name null, counted.
CENTS_PER_USD = 100
EXCLUDE_CPU = "variant without GPUs (gpu_count 0)"
EXCLUDE_NO_DC = "no datacenter lists nodes for this variant"
