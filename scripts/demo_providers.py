"""Demo pages for the providers added after the first eight (Hyperstack, ...), in the
snapshot format. Called by scripts/build_demo_snapshot.py; deterministic. Which values
are real and which illustrative: connectors/demo_snapshot/README.md."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

FETCHED_AT = "2026-11-20T02:00:00Z"


def _write(root: Path, provider: str, endpoint: str, name: str, page: dict) -> None:
    folder = root / provider / endpoint
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(page, indent=1) + "\n")


def _page(url: str, body: object, **request: object) -> dict:
    return {"fetched_at": FETCHED_AT, "request": {"url": url, **request}, "source_url": url,
            "body": body}  # fmt: skip


# (id, name, value, original_value, discount, start, end). Real: RTX-A4000 0.58 (the
# docs' example). Names as the live pricebook spells them; every other value illustrative.
HYPERSTACK_BOOK = [
    (10, "RTX-A4000", 0.58, 0.58, False, None, None),
    (11, "RTX-A6000", 0.5, 0.5, False, None, None),
    (12, "L40", 1.0, 1.0, False, None, None),
    (13, "A100-80G-PCIe", 1.35, 1.35, False, None, None),
    (14, "A100-80G-PCIe-NVLink", 1.4, 1.4, False, None, None),
    (15, "A100-80G-SXM4", 1.6, 1.6, False, None, None),
    (16, "H100-80G-PCIe", 1.9, 1.9, False, None, None),
    (17, "H100-80G-PCIe-NVLink", 1.95, 1.95, False, None, None),
    (18, "H100-80G-SXM5", 2.4, 2.4, False, None, None),
    (19, "H100-80G-PCIe-spot", 1.52, 1.52, False, None, None),
    (20, "H200-141G-SXM5", 3.5, 3.5, False, None, None),
    (21, "B200-SXM", 5.4, 5.9, True, "2026-11-01T00:00:00Z", "2027-01-31T23:59:59Z"),
    (22, "RTX-PRO6000-SE", 1.8, 1.8, False, None, None),
    # no row in the GPU reference: kept with gpu_name null and counted
    (23, "RTX-5090", 0.89, 0.89, False, None, None),
    # non-GPU resources: excluded with reasons
    (1, "vCPU", 0.0045, 0.0045, False, None, None),
    (2, "RAM", 0.0012, 0.0012, False, None, None),
    (3, "cloud-ssd", 0.0001, 0.0001, False, None, None),
    (4, "publicIP", 0.004, 0.004, False, None, None),
]


def build_hyperstack(root: Path) -> None:
    shutil.rmtree(root / "hyperstack", ignore_errors=True)
    body = [
        {"id": i, "name": name, "value": value, "original_value": original,
         "discount_applied": discount, "start_time": start, "end_time": end}
        for i, name, value, original, discount, start, end in HYPERSTACK_BOOK
    ]  # fmt: skip
    url = "https://infrahub-api.nexgencloud.com/v1/pricebook"
    _write(root, "hyperstack", "pricebook", "pricebook-0001.json", _page(url, body))


BUILDERS = (build_hyperstack,)


def build_all(root: Path) -> None:
    for build in BUILDERS:
        build(root)
