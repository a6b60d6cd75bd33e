"""DigitalOcean settings: the sizes endpoint, paging, auth, and the GPU model map."""

from __future__ import annotations

PROVIDER = "digitalocean"
ENDPOINT = "sizes"

# docs.digitalocean.com/reference/api/reference/sizes/: "List All Droplet Sizes",
# GET /v2/sizes, bearer token with the sizes:read scope; `per_page` (default 20) and
# `page`; the body is {"sizes": [...], "links": {"pages": {"next", "last"}}, "meta":
# {"total"}}. 200 is the largest page DigitalOcean's API pagination allows.
SIZES_URL = "https://api.digitalocean.com/v2/sizes"
PER_PAGE = 200
MAX_PAGES = 20
# The token env names of DigitalOcean's own tools (doctl, pydo examples), then gpuhunt's.
TOKEN_ENV = ("DIGITALOCEAN_TOKEN", "DIGITALOCEAN_ACCESS_TOKEN", "DIGITAL_OCEAN_API_KEY")

# `gpu_info.model` ("nvidia_h100", "amd_mi300x", "nvidia_rtx6000_ada"; gpuhunt's tests and
# providers/digitalocean.py) is handed over as the source's GPU words: the shared GPU rule
# (common/gpu.py) names it; a card the reference lacks (RTX 4000 Ada) stays null,
# counted.

# A size with `regions: []` is sold nowhere today ("An array containing the region slugs
# where this size is available", DigitalOcean API reference); `available: false` means
# it cannot be created. Both excluded with a reason. Sizes without `gpu_info` are CPU
# droplets: excluded once per size (not per region).
EXCLUDE_CPU = "CPU droplet size (no gpu_info)"
EXCLUDE_UNAVAILABLE = "size not available (available false, or no region lists it)"
