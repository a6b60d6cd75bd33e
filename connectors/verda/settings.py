"""Verda (formerly DataCrunch) settings: endpoints and OAuth2 client credentials."""

from __future__ import annotations

PROVIDER = "verda"
INSTANCE_TYPES = "instance_types"
LOCATIONS = "locations"

# The Verda Cloud API (api.verda.com/v1/docs; the old host api.datacrunch.io serves the
# same API). Paths and the token exchange as the official SDK calls them
# (DataCrunch-io/datacrunch-python: `/oauth2/token`, `/instance-types`, `/locations`).
BASE_URL = "https://api.verda.com/v1"
TOKEN_PATH = "/oauth2/token"
INSTANCE_TYPES_PATH = "/instance-types"
LOCATIONS_PATH = "/locations"
PARAMS = {"currency": "usd"}

# OAuth2 client credentials (Verda console > Keys > Cloud API credentials). The old
# DATACRUNCH_* names are read too, as the SDK's README still shows them.
CLIENT_ID_ENV = ("VERDA_CLIENT_ID", "DATACRUNCH_CLIENT_ID")
CLIENT_SECRET_ENV = ("VERDA_CLIENT_SECRET", "DATACRUNCH_CLIENT_SECRET")

# Instance-type prices are the same in every location: gpuhunt (providers/verda.py)
# offers every instance type in every location of `/locations`. Without a locations
# page, offers are region 'global'.
NO_LOCATION_REGION = "global"
SPOT_DETAIL = "spot instance"

# `gpu.description` ("1x H100 SXM5 80GB", "2x RTX A6000 48GB", "8x B300 SXM6 268GB") is
# handed over as the source's GPU words: the shared GPU rule (common/gpu.py) reads
# the name, the memory (snapped to the marketed size: Verda reports 268 GB for the B300,
# NVIDIA markets 288 GB) and the form factor. A GPU the reference lacks (the AMD RX 7900
# XTX) stays gpu_name null and is counted.
EXCLUDE_CPU_ONLY = "CPU-only instance type (no GPU)"
