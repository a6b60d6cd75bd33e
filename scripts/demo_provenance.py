"""What each demo page says of its prices (the `provenance` statement of
connectors/kit/provenance.py): every value the demo builders invent is `illustrative`; the
offers whose price is a real value copied from a public source (the sources are in
connectors/demo_snapshot/README.md, per provider) are listed as `api`. The statement is written
into every page of the provider (and every sidecar of a file endpoint) after the builders
ran, so a refresh from the demo stages each invented price as illustrative: rankings,
estimates, plans and alerts leave it out unless asked for (`--include-illustrative`).

The price sheets carry their own provenance per row (connectors/sheets/README.md) and get
no statement."""

from __future__ import annotations

import json
from pathlib import Path


def _each(pricing_models: list[str], instance_types: list[str], **keys: str) -> list[dict]:
    return [
        {**keys, "instance_type": t, "pricing_model": m}
        for m in pricing_models
        for t in instance_types
    ]


ALL_REAL = {"default": "api", "api": []}
ALL_ILLUSTRATIVE = {"default": "illustrative", "api": []}

# AWS: the us-east-1 Linux on-demand list prices of 2024, and the published Capacity Block
# rates (README "aws").
_AWS_LIST = [
    "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "g5.xlarge", "g5.12xlarge",
    "g5.48xlarge", "g6.xlarge", "g6.12xlarge", "g4dn.xlarge", "g4dn.12xlarge",
    "p3.2xlarge", "p3.16xlarge",
]  # fmt: skip
# GCP, us-central1: the recorded A2 and A100 40GB SKUs (every a2-highgpu / a2-megagpu machine
# is composed of them), the quoted a3-highgpu-8g machine and its H100 SKU; DWS flex-start:
# the quoted A3 and A2 rates (README "gcp").
_GCP_A2 = ["a2-highgpu-1g", "a2-highgpu-2g", "a2-highgpu-4g", "a2-highgpu-8g", "a2-megagpu-16g"]
_GCP_A3 = ["a3-highgpu-1g", "a3-highgpu-2g", "a3-highgpu-4g", "a3-highgpu-8g"]
_GCP_GPUS = ["nvidia-tesla-a100", "nvidia-h100-80gb"]

# RunPod: runpod.io/pricing as read 2026-11-09 and 2026-10-07 (README "runpod")
_RUNPOD_REAL = [
    "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA A100 80GB PCIe",
    "NVIDIA A100-SXM4-80GB", "NVIDIA H200", "NVIDIA B200",
]  # fmt: skip

STATEMENTS: dict[str, dict] = {
    "aws": {
        "default": "illustrative",
        "api": [
            *_each(["on_demand"], _AWS_LIST, region="us-east-1"),
            {"pricing_model": "capacity_block"},
        ],
    },
    "azure": {
        "default": "illustrative",
        "api": _each(["on_demand"], ["Standard_ND96asr_v4"], region="eastus"),
    },
    "gcp": {
        "default": "illustrative",
        "api": _each(["on_demand"], [*_GCP_A2, "a3-highgpu-8g", *_GCP_GPUS], region="us-central1")
        + _each(["flex"], [*_GCP_A2, *_GCP_A3, *_GCP_GPUS], region="us-central1"),
    },
    "lambdalabs": ALL_REAL,  # every price: lambda.ai/instances
    "runpod": {
        "default": "illustrative",
        "api": _each(["on_demand"], _RUNPOD_REAL),
    },
    "vastai": ALL_ILLUSTRATIVE,
    "oci": {"default": "illustrative", "api": _each(["on_demand"], ["BM.GPU.H100.8"])},
    "hyperstack": {"default": "illustrative", "api": _each(["on_demand"], ["RTX-A4000"])},
    "verda": {
        "default": "illustrative",
        "api": _each(["on_demand", "spot"], ["1H100.80S.30V", "2A6000.20V", "1V100.6V"]),
    },
    "digitalocean": {
        "default": "illustrative",
        "api": _each(["on_demand"], ["gpu-h100x8-640gb", "gpu-mi300x8-1536gb"], region="nyc1"),
    },
    "vultr": {
        "default": "illustrative",
        "api": _each(["on_demand"], ["vcg-a100-12c-120g-80vram"])
        + _each(
            ["on_demand", "spot"],
            ["vbm-256c-2048gb-8-mi300x-gpu", "vbm-112c-2048gb-8-h100-gpu"],
        ),
    },
    "cloudrift": ALL_ILLUSTRATIVE,
    "jarvislabs": {
        "default": "illustrative",
        "api": _each(["on_demand", "spot"], ["L4", "A100-80GB", "RTX-PRO6000"])
        + _each(["on_demand"], ["H100"], region="europe-01"),
    },
    "hotaisle": ALL_ILLUSTRATIVE,
    # the prices are Crusoe's published ones (connectors/crusoe/settings.py); only the
    # pages' names, locations and capacities are invented
    "crusoe": ALL_REAL,
    "fluidstack": ALL_ILLUSTRATIVE,
    "seeweb": {
        "default": "illustrative",
        "api": _each(["on_demand"], ["ECS1GPU7", "ECS2GPU3", "ECS1GPU9"]),
    },
    "nebius": ALL_ILLUSTRATIVE,
}


def mark(root: Path) -> int:
    """Write each provider's statement into its pages (before the body, after the other
    envelope keys) and file sidecars; returns the number of files written."""
    written = 0
    for provider, statement in STATEMENTS.items():
        for path in sorted((root / provider).rglob("*.json")):
            doc = json.loads(path.read_text(encoding="utf-8"))
            has_body = "body" in doc
            body = doc.pop("body", None)
            doc.pop("provenance", None)
            doc["provenance"] = statement
            if has_body:  # the body stays the last key (docs/snapshot-format.md)
                doc["body"] = body
            path.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
            written += 1
    return written
