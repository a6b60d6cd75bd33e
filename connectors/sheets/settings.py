"""Curated price sheets: where they live and the columns a sheet must have.

Column reference (also in README.md): prices are per hour for the whole `instance_type`
(with `gpu_count` GPUs), not per GPU-hour; the warehouse divides.
"""

from __future__ import annotations

from pathlib import Path

PROVIDER = "sheets"
# the column older sheets (and raw pages stored before the rename) gave the GPU's words in
LEGACY_GPU_COLUMN = "gpu_name"
ENDPOINT = "price_sheet"
SHEETS_DIR = Path(__file__).with_name("sheets")

REQUIRED_COLUMNS = (
    "provider",
    "instance_type",
    "region",
    "gpu",
    "gpu_memory_gib",
    "gpu_count",
    "pricing_model",
    "price_usd_per_hour",
    "as_of",
    "source_url",
)
OPTIONAL_COLUMNS = (
    "pricing_detail",
    "valid_until",
    "vcpus",
    "memory_gib",
    "source_currency",
    "source_price",
    "illustrative",
    "note",
)
# The row fields that must not be empty. `gpu` (the GPU as the source writes it) may be:
# the instance type is read instead; a GPU the shared rule (common/gpu.py) cannot name
# is published unnamed and counted as unknown, never under the sheet's own spelling.
NOT_EMPTY = ("provider", "instance_type", "region", "pricing_model", "as_of", "source_url")
PROVIDER_PATTERN = r"^[a-z][a-z0-9_]*$"
# A source a reader can check: a public web address. Anything else (a note, a reference
# to a document outside the repository) makes the row 'unverified'.
PUBLIC_URL_PATTERN = r"^https?://[^\s/]+\.[^\s]+"
TRUE_WORDS = ("true", "yes", "1")

# The providers the bundled sheets publish rows for (Connector.emits_providers; a test
# checks it against the sheets). Sheet rows keep the provider they are about; the
# `connector` column of int_offers_unioned says 'sheets'.
EMITS_PROVIDERS = (
    "aws",
    "azure",
    "coreweave",
    "fluidstack",
    "gcp",
    "lambdalabs",
    "oci",
    "paperspace",
)
