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

# Pricebook GPU name (spot suffix removed) -> (gpu_name, marketed memory per GPU, GiB).
# Names as the live pricebook spells them (public collectors' recordings, 2026-08;
# the docs example "RTX-A4000"). Memory: the "80G"/"141G" in the name, else the
# vendor's datasheet (L40 48 GB, RTX A4000 16 GB, RTX A6000 48 GB, RTX PRO 6000
# Blackwell Server Edition 96 GB, B200 180 GB as in sql/seeds/seed_gpu_specs.csv).
# NVLink/SXM/PCIe are form factors of the same part, so they share a gpu_name.
# Not mapped on purpose (no row in seed_gpu_specs, or a variant whose meaning the docs
# do not state): RTX-5090, "-IB", "-k8s", "-sm" variants. They are kept with gpu_name
# null and counted, never guessed.
GPUS: dict[str, tuple[str, float]] = {
    "A100-80G-PCIe": ("A100", 80),
    "A100-80G-PCIe-NVLink": ("A100", 80),
    "A100-80G-SXM4": ("A100", 80),
    "H100-80G-PCIe": ("H100", 80),
    "H100-80G-PCIe-NVLink": ("H100", 80),
    "H100-80G-SXM5": ("H100", 80),
    "H200-141G-SXM5": ("H200", 141),
    "B200-SXM": ("B200", 180),
    "B300-SXM": ("B300", 288),
    "L40": ("L40", 48),
    "RTX-A4000": ("RTX A4000", 16),
    "RTX-A6000": ("RTX A6000", 48),
    "RTX-PRO6000-SE": ("RTX PRO 6000", 96),
    "RTX-4090": ("RTX 4090", 24),
}

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
# A name that looks like a GPU model (RTX-..., H100-..., GB200-..., MI300X ...) but is
# not in GPUS is kept as an offer, named by the shared GPU rule (connectors/kit/gpu.py) where
# the reference has it (RTX-5090), else gpu_name null; anything else is excluded.
GPU_SHAPED = r"(?i)^(RTX|GTX|G?[ABHL]\d{2,3}|MI\d{3})"
EXCLUDE_OTHER = "pricebook entry not recognised as a GPU (no GPU model in its name)"
