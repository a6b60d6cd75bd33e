"""Hyperstack settings: the pricebook endpoint, auth, which entries are GPUs, and the
pricebook name -> GPU map."""

from __future__ import annotations

PROVIDER = "hyperstack"
ENDPOINT = "pricebook"

# docs.hyperstack.cloud/docs/api-reference/pricebook-resources/pricebook: "Retrieve
# Pricebook", GET .../v1/pricebook, header `api_key: <key>`, a bare JSON array.
PRICEBOOK_URL = "https://infrahub-api.nexgencloud.com/v1/pricebook"
API_KEY_ENV = "HYPERSTACK_API_KEY"
API_KEY_HEADER = "api_key"

# Hyperstack lists one price per resource for every region (CANADA-1, NORWAY-1, US-1 ...):
# the pricebook has no region field, so offers are region 'global' (as OCI and RunPod).
REGION = "global"

# A pricebook entry named "<gpu>-spot" is the spot VM price of that GPU
# (e.g. "A100-80G-PCIe-spot", "L40-spot", "RTX-PRO6000-SE-spot" in public collectors'
# recordings of the live pricebook, 2026-08).
SPOT_SUFFIX = r"(?i)-spot$"
SPOT_DETAIL = "spot VM"

# A pricebook GPU name (spot suffix removed: "H100-80G-PCIe", "RTX-PRO6000-SE", "L40") is
# handed over as the source's GPU words: the shared GPU rule (common/gpu.py) reads
# the name, the "80G" memory (else the reference's size) and the PCIe / SXM form factor
# (NVLink, SXM and PCIe entries of one part share its gpu_name). Names the live pricebook
# spells so (public collectors' recordings, 2026-08; the docs example "RTX-A4000").
# Variants whose meaning the docs do not state ("-IB", "-k8s", "-sm") are kept with
# gpu_name null and counted, never guessed.
UNSTATED_VARIANT = r"(?i)-(ib|k8s|sm)(-|$)"

# The pricebook also prices non-GPU resources. (pattern, reason), first match wins;
# each is excluded and counted with its reason. Names from public collectors'
# recordings of the live pricebook (2026-08): "vCPU", "RAM", "cloud-ssd",
# "objectStorage", "hypervisor-local-storage", "publicIP", "... (CPU-only-flavors)",
# and per-token model prices "... (input)" / "... (output)".
NON_GPU: tuple[tuple[str, str], ...] = (
    (r"(?i)\((input|output)\)", "per-token model inference price, not a GPU rental"),
    (r"(?i)\(cpu-only-flavors\)", "CPU-only flavor component, not a GPU rental"),
    (r"(?i)^(vcpu|ram)$", "host vCPU or RAM component price, not a GPU rental"),
    (r"(?i)(storage|ssd|snapshot|volume)", "storage price, not a GPU rental"),
    (r"(?i)(publicip|ip address|bandwidth)", "network price, not a GPU rental"),
)
# A name that looks like a GPU model (RTX-..., H100-..., GB200-..., MI300X ...) but that the
# shared GPU rule does not name is kept as an offer with gpu_name null (counted); anything
# else is excluded.
GPU_SHAPED = r"(?i)^(RTX|GTX|G?[ABHL]\d{2,3}|MI\d{3})"
EXCLUDE_OTHER = "pricebook entry not recognised as a GPU (no GPU model in its name)"
