"""GCP settings: the catalog endpoint, the SKU description -> resource map, the usage-type
vocabulary, and each exclusion with why and a source.

Sources for the description forms below (read 2026-11):
- opencost/opencost pkg/cloud/gcp/test/skus.json (opencost recording: "Nvidia Tesla A100 GPU
  running in Americas", "A2 Instance Core/Ram running in Americas");
- gpuhunt's GCP provider (dstackai/gpuhunt, the conventions it relies on, collected from gpuhunt
  src/gpuhunt/providers/gcp.py and skypilot sky/catalog/data_fetchers/fetch_gcp.py);
- skypilot fetch_gcp.py: "H200 141GB GPU", "Nvidia B200 (1 gpu slice)", and the comment
  that A3 Mega GPUs appear as "H100 80GB Mega GPU" in some regions and "H100 80GB Plus GPU"
  in others;
- consumer code recording real descriptions: "Nvidia L4 GPU attached to Spot Preemptible
  VMs running in Americas", "Commitment v1: Nvidia Tesla T4 GPU running in Americas for
  3 Years", "Commitment v1: A4 Nvidia B200 (1 gpu slice) in Americas for 1 Year".
Forms marked [unverified] follow the naming of their neighbours but were not seen in a
recording; a SKU whose description differs is counted as unmatched, never guessed.
"""

from __future__ import annotations

PROVIDER = "gcp"
ENDPOINT = "skus"

# Compute Engine: VMs, GPUs (https://cloud.google.com/skus).
SERVICE = "services/6F81-5844-456A"
API_ENDPOINT = "https://cloudbilling.googleapis.com"
API_KEY_ENV = "GOOGLE_API_KEY"
SCOPES = ("https://www.googleapis.com/auth/cloud-platform",)
# 5000 is the API's default and maximum: the whole Compute Engine catalog is a few
# thousand SKUs, so one or two pages (as gpuhunt's GCP provider relies on).
PAGE_SIZE = 5000
# Asked for explicitly although it is the default: a non-USD answer would be converted
# at Google's rate, which we do not record.
CURRENCY = "USD"

# category.usageType -> pricing_model. Commitments (CUDs) are priced per hour of committed
# resource, i.e. already the effective hourly rate of the term. Others (Commit1Mo ...) are
# excluded, counted.
USAGE_TYPES = {
    "OnDemand": "on_demand",
    "Preemptible": "spot",
    "Commit1Yr": "reserved_1y",
    "Commit3Yr": "reserved_3y",
}
# DWS flex-start (Dynamic Workload Scheduler): VMs obtained with
# `--provisioning-model=FLEX_START` run up to 7 days, are not preempted once running, and
# are billed per second at their own rates (cloud.google.com/compute/docs/instances/
# about-flex-start-vms). The catalog names these rates "DWS Defined Duration", categorised
# OnDemand: "<GPU> attached to DWS Defined Duration VMs running in <geo>" and "DWS Defined
# Duration <family> Core|Ram running in <geo>" (read 2026-11 from billing data quoted in
# public write-ups: "Nvidia H100 80GB GPU attached to DWS Defined Duration VMs running in
# Americas" 341A-49A5-0C07, "DWS Defined Duration A3 Core running in Americas"
# 9A32-36B2-7FBC, "DWS Defined Duration A3 Ram running in Americas" ED19-A584-4A84, "DWS
# Defined Duration SSD backed Local Storage running in Americas" 2303-1D6A-9C08).
FLEX_MARKER = r"^DWS Defined Duration |attached to DWS Defined Duration VMs"
FLEX_DETAIL = "DWS flex-start: up to 7 days per VM, not preempted, billed per second"

# A few SKUs call themselves spot in the description while categorised OnDemand (seen by
# a consumer for "Spot Preemptible A4 Nvidia B200 (1 gpu slice)"). Left alone they would
# publish the spot price as on-demand, so the description marker also means spot.
SPOT_MARKER = r"^Spot Preemptible |attached to Spot Preemptible VMs"

# The resource part of a description: the prefix (spot / commitment), the "attached to
# ... VMs" clause and the location suffix (" running in Americas", " in us-central1 for
# 1 Year") removed. The suffix names a geo or a city, never the region list: regions come
# from serviceRegions only.
DESCRIPTION_BODY = (
    r"^(?:Spot Preemptible |Commitment v1: |DWS Defined Duration )?(.+?)"
    r"(?: attached to .+? VMs)?(?: running)? in .+$"
)

# Exclusions, matched on the full description before anything else, first hit wins.
# (pattern, reason). Why: each is a different product with its own price that would
# otherwise be taken for the standard rate (gpuhunt and skypilot drop the same words).
EXCLUSIONS: tuple[tuple[str, str], ...] = (
    (
        r"^Reserved ",
        "reserved: capacity held for a reservation, billed instead of the VM rate, "
        "not a list price (as gpuhunt's GCP provider relies on)",
    ),
    (
        r"Sole Tenancy",
        "sole tenancy: premium for sole-tenant nodes, charged on top of the VM "
        "(cloud.google.com/compute/docs/nodes/sole-tenant-nodes)",
    ),
    (
        r"\bCustom\b",
        "custom: custom machine type vCPU/RAM rates, not the predefined shapes we compose",
    ),
    (
        r"\bPremium\b",
        "premium: an add-on charged on top of a base rate, not a price of its own",
    ),
)
# Not applied to flex-start SKUs (FLEX_MARKER), which are priced as `flex`: calendar mode
# ("DWS Calendar Mode ...", "Reserved ... in Calendar Mode") and any other DWS form are
# reservation-style blocks with their own terms.
DWS_EXCLUSION = (
    r"\bDWS\b|Calendar Mode|Defined Duration",
    "DWS: Dynamic Workload Scheduler calendar mode has its own reservation-style price "
    "(cloud.google.com/compute/docs/dws)",
)
EXCLUDE_USAGE_TYPE = "usage type {} is outside on_demand/spot/flex/reserved_1y/reserved_3y"
EXCLUDE_UNMATCHED = "unmatched SKU description"
EXCLUDE_NOT_ACCELERATOR = (
    "not a GPU SKU nor the core/RAM of an accelerator machine family (storage, network, "
    "licences, other VM families)"
)
EXCLUDE_DUPLICATE = "duplicate SKU for the same offer (kept SKU {})"

# Which descriptions count as "a GPU we failed to match" rather than "not a GPU".
GPU_HINT = r"(?i)\bgpu\b|\bnvidia\b"

# GPU SKU description body -> (accelerator type, host included). The accelerator type is
# Compute Engine's name (acceleratorTypes.list) and becomes the instance_type of the
# per-GPU offer. Exact strings, no substring tests: "Nvidia H100 80GB GPU" must not
# swallow "Nvidia H100 80GB Mega GPU", nor "Nvidia Tesla A100 GPU" the 80GB one. The GPU,
# its memory and form factor are the shared GPU rule's (common/gpu.py), from the
# description and, where it states no memory, the accelerator's row of
# sql/seeds/seed_instance_families.csv (cloud.google.com/compute/docs/gpus).
GPU_SKUS: dict[str, tuple[str, bool]] = {
    "Nvidia Tesla A100 GPU": ("nvidia-tesla-a100", False),
    "Nvidia Tesla A100 80GB GPU": ("nvidia-a100-80gb", False),
    "Nvidia H100 80GB GPU": ("nvidia-h100-80gb", False),
    # the older spelling (as gpuhunt's GCP provider matches it: "Nvidia H100 80GB Gpu running in Virginia")
    "Nvidia H100 80GB Gpu": ("nvidia-h100-80gb", False),
    # A3 Mega: three spellings by region (skypilot, gpuhunt); "Plus" is the A3+ name that
    # the a3-megagpu host SKUs also carry ("A3Plus Instance Core").
    "Nvidia H100 80GB Mega GPU": ("nvidia-h100-mega-80gb", False),
    "Nvidia H100 Mega 80GB GPU": ("nvidia-h100-mega-80gb", False),
    "Nvidia H100 80GB Plus GPU": ("nvidia-h100-mega-80gb", False),
    # A3 Ultra: no "Nvidia" prefix in the recorded form
    "H200 141GB GPU": ("nvidia-h200-141gb", False),
    # A4 bills only per GPU slice, vCPUs and memory included: there are no A4 core/RAM SKUs
    "A4 Nvidia B200 (1 gpu slice)": ("nvidia-b200", True),
    "Nvidia L4 GPU": ("nvidia-l4", False),
    "Nvidia Tesla T4 GPU": ("nvidia-tesla-t4", False),
    "Nvidia Tesla V100 GPU": ("nvidia-tesla-v100", False),
    "Nvidia Tesla P100 GPU": ("nvidia-tesla-p100", False),
    "Nvidia Tesla P4 GPU": ("nvidia-tesla-p4", False),
    # G4 (RTX PRO 6000 Blackwell); per-GPU offer only, no G4 shapes composed yet
    "RTX 6000 96GB": ("nvidia-rtx-pro-6000", False),
}

# Host SKU description body -> (host family, component). Only the families that carry
# accelerators; other VM families are counted as not-an-accelerator.
HOST_SKUS: dict[str, tuple[str, str]] = {
    "A2 Instance Core": ("a2", "core"),
    "A2 Instance Ram": ("a2", "ram"),
    "A2 Core": ("a2", "core"),  # "DWS Defined Duration A2 Core" (flex-start)
    "A2 Cpu": ("a2", "core"),  # commitment form [unverified for A2; A3's is recorded]
    "A2 Ram": ("a2", "ram"),
    "A3 Instance Core": ("a3", "core"),
    "A3 Instance Ram": ("a3", "ram"),
    "A3 Core": ("a3", "core"),  # "DWS Defined Duration A3 Core running in Americas"
    "A3 Cpu": ("a3", "core"),  # "Commitment v1: A3 Cpu in <region> for 1 Year"
    "A3 Ram": ("a3", "ram"),
    "A3Plus Instance Core": ("a3plus", "core"),  # a3-megagpu
    "A3Plus Instance Ram": ("a3plus", "ram"),
    "A3Plus Core": ("a3plus", "core"),  # flex-start [unverified]
    "A3Plus Cpu": ("a3plus", "core"),  # [unverified]
    "A3Plus Ram": ("a3plus", "ram"),  # [unverified]
    "A3Ultra Instance Core": ("a3ultra", "core"),  # a3-ultragpu [unverified]
    "A3Ultra Instance Ram": ("a3ultra", "ram"),  # [unverified]
    "A3Ultra Core": ("a3ultra", "core"),  # "DWS Defined Duration A3Ultra Core" (flex-start)
    "A3Ultra Ram": ("a3ultra", "ram"),  # flex-start [unverified]
    "G2 Instance Core": ("g2", "core"),
    "G2 Instance Ram": ("g2", "ram"),
    "G2 Core": ("g2", "core"),  # flex-start [unverified]
    "G2 Cpu": ("g2", "core"),  # [unverified]
    "G2 Ram": ("g2", "ram"),  # [unverified]
    "N1 Predefined Instance Core": ("n1", "core"),
    "N1 Predefined Instance Ram": ("n1", "ram"),
    # N1 commitments are the general-purpose ones: "Commitment v1: Cpu in Americas for
    # 1 Year" [unverified]; other families name themselves ("A3 Cpu", "E2 Cpu")
    "Cpu": ("n1", "core"),
    "Ram": ("n1", "ram"),
}

# Local SSD bundled with a machine type (a2-ultragpu, a3, a4: `local_ssd_gib` in
# machine_shapes.csv, from the Local SSD column of cloud.google.com/compute/docs/
# accelerator-optimized-machines) is billed with it: "Google Cloud bills accelerator-
# optimized machine types for their attached GPUs, predefined vCPU, memory, and bundled
# Local SSD (if applicable)" (same page). The SKU is the Compute Engine storage SKU "SSD
# backed Local Storage running in <geo>" (spot: "... attached to Spot Preemptible VMs ...",
# flex-start: "DWS Defined Duration SSD backed Local Storage ...", 2303-1D6A-9C08 in the
# Americas), priced per GiB-month; a month is 730 hours in Google's own per-hour figures
# (GKE's machine table: "[0.08 $ / GB / month] / 730 [h / month]").
STORAGE_SKUS: dict[str, tuple[str, str]] = {
    "SSD backed Local Storage": ("local-ssd", "ssd"),
}
# Google's billing month for per-GiB-month prices: not the 720-hour month the cost
# formulas use (seed_conventions.hours_per_month), so it has its own name
GCP_BILLING_HOURS_PER_MONTH = 730
# A commitment (reserved_1y/3y) machine whose region lists no committed Local SSD rate:
# its SSD is priced at the on-demand SSD rate, and pricing_detail says so.
SSD_AT_ON_DEMAND_DETAIL = "local SSD at its on-demand rate (no {} SSD SKU in the region)"

# The usage unit each component is priced in (pricingExpression.usageUnit).
USAGE_UNITS = {"gpu": "h", "core": "h", "ram": "GiBy.h", "ssd": "GiBy.mo"}

PER_GPU_DETAIL = "accelerator only; host vCPU and RAM billed separately"
PER_GPU_DETAIL_HOST_INCLUDED = "GPU slice; host vCPU and RAM included"
COMPOSED_DETAIL = "composed: vCPUs x core SKU + GiB x RAM SKU + GPUs x GPU SKU"
COMPOSED_SSD_DETAIL = COMPOSED_DETAIL + " + local SSD GiB x SSD SKU / 730 h"
