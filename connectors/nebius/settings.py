"""Nebius settings: the gRPC services read, auth, and the GPU map."""

from __future__ import annotations

PROVIDER = "nebius"
ENDPOINT = "estimates"

# Nebius AI Cloud publishes no price list API: prices come from the billing calculator,
# `nebius.billing.v1alpha1.CalculatorService/Estimate`, one call per compute platform
# preset (and per preemptible variant), as gpuhunt's providers/nebius.py does. The
# presets come from `nebius.compute.v1.PlatformService/List` in one project per region,
# found with `nebius.iam.v1.TenantService/List` and `ProjectService/List`. Client: the
# `nebius` Python SDK (github.com/nebius/pysdk), which resolves the service addresses.
# An IAM token from the SDK's standard variable; the SDK sends it as a Bearer token.
TOKEN_ENV = "NEBIUS_IAM_TOKEN"
# per call, seconds (gpuhunt uses 7)
TIMEOUT = 7
PAGE_SIZE = 999
# gRPC status codes that say "try again later"; any other code fails as a bad answer
TRANSIENT_CODES = frozenset({"UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED"})

# The GPU token of a platform name `gpu-<token>-...` (docs.nebius.com/compute/virtual-machines/
# types: "h100", "l40s", "rtx6000") is handed over as the source's GPU words with the
# platform's own `spec.gpu_memory_gigabytes`: the shared GPU rule (common/gpu.py)
# names it; a token it does not name keeps gpu_name null and is counted.
EXCLUDE_CPU = "CPU-only preset (no GPU)"
REJECT_NO_ESTIMATE = "no price estimate returned for this preset"
