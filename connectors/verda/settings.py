"""Verda (formerly DataCrunch) settings: endpoints, OAuth2 client credentials, the GPU map."""

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

# `gpu.description` ("1x H100 SXM5 80GB", "2x RTX A6000 48GB", "8x B300 SXM6 268GB") ->
# (gpu_name, marketed memory per GPU). Patterns after gpuhunt's GPU_MAP; memory snapped
# to the marketed size (Verda reports 268 GB for the B300, NVIDIA markets 288 GB).
# A GPU missing here is named by the shared GPU rule (connectors/kit/gpu.py) from the
# instance type where the reference has it (RTX 6000 Ada); else (the AMD RX 7900 XTX) it
# stays gpu_name null and is counted.
GPU_PATTERNS: tuple[tuple[str, str, float], ...] = (
    (r"^\d+x B200 SXM6 180GB$", "B200", 180),
    (r"^\d+x B300 SXM6 2[0-9]{2}GB$", "B300", 288),
    (r"^\d+x H200 SXM5 141GB$", "H200", 141),
    (r"^\d+x H100 SXM5 80GB$", "H100", 80),
    (r"^\d+x A100 SXM4 80GB$", "A100", 80),
    (r"^\d+x A100 SXM4 40GB$", "A100", 40),
    (r"^\d+x RTX PRO 6000 96GB$", "RTX PRO 6000", 96),
    (r"^\d+x RTX A6000 48GB$", "RTX A6000", 48),
    (r"^\d+x L40S 48GB$", "L40S", 48),
    (r"^\d+x Tesla V100 16GB$", "V100", 16),
)
EXCLUDE_CPU_ONLY = "CPU-only instance type (no GPU)"
