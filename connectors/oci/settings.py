"""OCI settings: the public price list, which of its rows are GPU rentals, and the
preemptible discount."""

from __future__ import annotations

from pathlib import Path

PROVIDER = "oci"
ENDPOINT = "products"

# The cetools price list behind oracle.com/cloud/compute/pricing: one GET returns the
# whole list; `currencyCode` and `partNumber` are the only parameters the server honours
# (others are silently ignored), so there is no request-side filter to apply.
PRODUCTS_URL = "https://apexapps.oracle.com/pls/apex/cetools/api/v1/products/"
PARAMS = {"currencyCode": "USD"}

# OCI list prices are the same in every commercial region (oracle.com/cloud/price-list:
# "consistent global pricing"), so there is one offer per shape, region 'global'.
REGION = "global"

# GPU rentals are the rows billed "GPU Per Hour" (already per GPU) in these categories
# ("Compute - GPU - Other" holds the H100T part). Rows of the GPU categories with another
# metric (VMware BM.GPU.A10.64 "Node Per Hour" commit tiers) are excluded with a reason;
# everything else in the list (OCPU, memory, storage, database ...) is not a GPU product
# and is not read at all.
GPU_METRIC = "GPU Per Hour"
GPU_CATEGORIES = ("Compute - GPU", "Compute - GPU - Other")
PAYG = "PAY_AS_YOU_GO"

# Look-alike rows: per-GPU-hour NVIDIA AI Enterprise *software licences* in the same
# category with the same metric ("OCI - NVIDIA AI Enterprise - H100", 2.50 vs the 10.00
# rental), and Compute Cloud@Customer on-premises appliance pricing. Both excluded.
EXCLUDE_LICENCE_MARKER = "NVIDIA AI Enterprise"
EXCLUDE_LICENCE = "NVIDIA AI Enterprise software licence billed per GPU-hour, not a GPU rental"
EXCLUDE_ON_PREM_MARKER = "Cloud@Customer"
EXCLUDE_ON_PREM = "Compute Cloud@Customer: on-premises appliance pricing, not public cloud"
EXCLUDE_OTHER_METRIC = "GPU category row not billed per GPU-hour (e.g. VMware per-node tiers)"
EXCLUDE_CATEGORY = "GPU-hour row outside the vetted GPU rental categories"

# Shape table (CSV beside this file, one source per row): shape -> part number, GPU
# count, host vCPUs/memory, and whether preemptible capacity is allowed (the GPU of a shape
# is its row of sql/seeds/seed_instance_families.csv). `name_token` is
# the chip the part's displayName must still name: if Oracle re-used a part number the
# row is rejected instead of being priced as the wrong GPU.
SHAPES_CSV = Path(__file__).with_name("shapes.csv")

# Preemptible capacity "costs 50% less than on-demand capacity"
# (docs.oracle.com/iaas/Content/Compute/Concepts/preemptible.htm#howitworks__billing,
# quoted by gpuhunt providers/oci.py). Only shapes marked preemptible in shapes.csv get a
# spot offer: the A10 and A100 shapes, which the preemptible page lists as supported and
# for which the 2023-04-07 price survey shows Oracle spot at exactly half of on-demand.
PREEMPTIBLE_FACTOR = 0.5
PREEMPTIBLE_DETAIL = "preemptible (50% of on-demand, documented)"
