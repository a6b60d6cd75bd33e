"""Lambda Cloud settings: endpoint, auth, and the GPU-name map for instance descriptions."""

from __future__ import annotations

PROVIDER = "lambdalabs"
ENDPOINT = "instance_types"

# cloud.lambda.ai is the current host; gpuhunt and skypilot still call the old
# cloud.lambdalabs.com, which serves the same API (as gpuhunt's and SkyPilot's provider code read it).
INSTANCE_TYPES_URL = "https://cloud.lambda.ai/api/v1/instance-types"
API_KEY_ENV = "LAMBDA_API_KEY"

# `instance_type.description` is "8x H100 (80 GB SXM5)", "1x A10 (24 GB PCIe)",
# "8x Tesla V100 (16 GB)": count, GPU name, memory per GPU in GB. The pattern is
# gpuhunt's (providers/lambdalabs.py), with `\d+` so a 16-GPU type would still parse.
DESCRIPTION_PATTERN = r"^(\d+)x (?:Tesla )?(.+?) \((\d+) GB"

# The description ("8x H100 (80 GB SXM5)") is handed over as the source's GPU words with
# the memory it states: the shared GPU rule (common/gpu.py) names the GPU (a GPU it
# does not name keeps gpu_name null, counted, never guessed). "RTX 6000" at 24 GB is the
# Quadro RTX 6000 (Turing TU102, `gpu_1x_rtx6000`), not the RTX 6000 Ada nor the RTX PRO
# 6000. Sources: lambda.ai/instances (2026-09-20) lists B200 SXM6, H100 SXM/PCIe, A100 SXM
# 40/80 GB, GH200, A10, A6000, Tesla V100 and Quadro RTX 6000.

# Region for an instance type that lists no capacity: its price is real, but Lambda says
# nothing about where it could run, so no region is invented (pricing_detail says why).
NO_CAPACITY_REGION = "any"
NO_CAPACITY_DETAIL = "no capacity listed"

CENTS_PER_USD = 100
