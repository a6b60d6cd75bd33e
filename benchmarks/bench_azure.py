"""Benchmark: N Azure Retail Prices items in the real shape -> a refresh, against DuckDB.

    uv run python -m benchmarks.bench_azure [--items 1000000] [--page-size 1000]

Generates a snapshot under benchmarks/out/ (once), then, each in its own child process
(peak resident memory = the child's ru_maxrss): DuckDB's bare `read_json` of the same
files with a declared schema, the same exclusions and the per-GPU-hour division into a
table (the baseline); a refresh of a new warehouse; the same snapshot refreshed again
(every page unchanged); and, where the `bench` dependency group is installed, gpuhunt's
Azure parse of the same pages (GPUHUNT_CHILD). Prints each with its ratio to the baseline. The generated regions and sizes cycle through the real
families, so the parse does the real work (family map, specs join, exclusions, reserved
conversion).
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from samples.azure import azure_retail_item, azure_retail_page

OUT = Path(__file__).parent / "out"
SIZES = [
    ("Standard_ND96asr_v4", "ND96asr v4", "NDasrA100_v4", 27.197),
    ("Standard_ND96isr_H100_v5", "ND96isr H100 v5", "NDisrH100_v5", 98.32),
    ("Standard_NC24ads_A100_v4", "NC24ads A100 v4", "NCadsA100_v4", 3.673),
    ("Standard_NC4as_T4_v3", "NC4as T4 v3", "NCasT4_v3", 0.526),
    ("Standard_NV36ads_A10_v5", "NV36ads A10 v5", "NVadsA10_v5", 3.2),
]
VARIANTS = [
    {},
    {"suffix": " Spot"},
    {"windows": True},
    {"suffix": " Low Priority"},
    {"kind": "Reservation", "term": "1 Year"},
    {"kind": "Reservation", "term": "3 Years"},
]


def generate(items: int, page_size: int) -> Path:
    root = OUT / f"azure-{items}"
    folder = root / "azure" / "retail_prices"
    if folder.exists() and len(list(folder.glob("*.json"))) == -(-items // page_size):
        return root
    folder.mkdir(parents=True, exist_ok=True)
    n = 0
    for page_no in range(-(-items // page_size)):
        batch = []
        for _ in range(min(page_size, items - n)):
            arm, display, series, price = SIZES[n % len(SIZES)]
            variant = VARIANTS[(n // len(SIZES)) % len(VARIANTS)]
            # a distinct "region" per block keeps offers distinct, as a full crawl is
            region = f"region{n // (len(SIZES) * len(VARIANTS)):06d}"
            scale = 8760 if variant.get("term") == "1 Year" else 26280 if variant.get("term") else 1
            batch.append(
                azure_retail_item(
                    arm_sku=arm,
                    display=display,
                    series=series,
                    region=region,
                    location=region,
                    price=round(price * scale, 4),
                    **variant,
                )
            )
            n += 1
        doc = {
            "fetched_at": "2026-11-20T02:00:00Z",
            "request": {"region": f"page{page_no:05d}"},
            "body": azure_retail_page(batch, None),
        }
        (folder / f"p{page_no:05d}.json").write_text(json.dumps(doc, separators=(",", ":")))
    return root


REFRESH_CHILD = """
import json, resource, sys, time
from pathlib import Path
from connectors.kit import snapshot as kit_snapshot
from flows import pipeline
from warehouse.rawstore import RawStore
snap, path = Path(sys.argv[1]), Path(sys.argv[2])
t0 = time.perf_counter()
# a generator: pages are read and landed one at a time, as a live fetch streams them
pages = kit_snapshot.read_provider(snap, "azure")
summary = pipeline.load_and_publish(path, {"azure": pages}, source="bench")
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "timings": summary.timings,
                  "staged": summary.providers[0].loaded, "reused": summary.providers[0].reused,
                  "file_mb": path.stat().st_size / 1e6,
                  "store_mb": RawStore.beside(path).size_bytes() / 1e6,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# DuckDB alone: read_json of the same snapshot files with a declared schema (the item
# fields the connector declares), the same exclusions, the specs join and the
# per-GPU-hour division, into a table: what a refresh is measured against.
DUCKDB_SQL = """
    CREATE TABLE offers AS
    WITH pages AS (
        SELECT fetched_at, unnest(body.Items) AS it
        FROM read_json('{files}', format = 'auto',
                       columns = {{fetched_at: 'VARCHAR', request: 'JSON',
                                  body: 'STRUCT(Items STRUCT({item})[], NextPageLink VARCHAR)'}})
    ), items AS (SELECT fetched_at, it.* FROM pages)
    SELECT lower(armRegionName) AS region, armSkuName AS instance_type,
           CASE WHEN type = 'Reservation' THEN 'reserved'
                WHEN meterName LIKE '% Spot' THEN 'spot' ELSE 'on_demand' END AS pricing_model,
           retailPrice::DOUBLE / CASE WHEN type = 'Reservation'
                THEN 8760 * regexp_extract(reservationTerm, '^(\\d+) Years?$', 1)::INT
                ELSE regexp_extract(unitOfMeasure, '^(\\d+) Hours?$', 1)::DOUBLE END
               AS price_usd_per_hour,
           price_usd_per_hour / s.gpu_count AS price_usd_per_gpu_hour,
           effectiveStartDate::TIMESTAMP AS effective_at, fetched_at::TIMESTAMP AS fetched_at
    FROM items LEFT JOIN read_csv('{sizes}') s ON s.arm_sku_name = items.armSkuName
    WHERE serviceName = 'Virtual Machines' AND coalesce(armSkuName, '') <> ''
      AND productName NOT LIKE '%Windows%'
      AND meterName NOT LIKE '%Low Priority%' AND skuName NOT LIKE '%Low Priority%'
      AND type IN ('Consumption', 'Reservation')
"""
DUCKDB_CHILD = """
import json, resource, sys, time
import duckdb
sql = sys.argv[1]
con = duckdb.connect()
con.execute("SET memory_limit = '1GB'")
t0 = time.perf_counter()
con.execute(sql).fetchall()
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "rows": con.execute("SELECT count(*) FROM offers").fetchone()[0],
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""
ROOT = Path(__file__).resolve().parent.parent

# gpuhunt's Azure provider (the `bench` dependency group: `uv sync --group bench`) over the
# same items, offline: its own page reader (`get_pages`, which reads a cached page as
# `{region}-{page:02}.json` and stops at a page without items) and its own per-item loop
# (`get`: retired-series and zero-price filters, the spec lookup, a CatalogItem per offer,
# sorted by price). Only the subscription's VM specs, which it asks ARM for, are handed to
# it from connectors/azure/vm_sizes.csv, each with the GPU its own name rule gives. It
# parses every item of the pages: its live fetch has the API leave out Windows, low
# priority and reservation items ($filter), which the generated pages hold.
GPUHUNT_CHILD = """
import csv, json, resource, sys, time
t0 = time.perf_counter()
from gpuhunt import AcceleratorVendor
from gpuhunt.providers import azure as gh
cache, sizes = sys.argv[1], sys.argv[2]
with open(cache + "/regions.json") as fh:
    regions = json.load(fh)
specs = {}
with open(sizes, newline="") as fh:
    for row in csv.DictReader(fh):
        gpus = int(float(row["gpu_count"]))
        name, memory = gh.get_gpu_name_memory(row["arm_sku_name"])
        specs[row["arm_sku_name"]] = gh._InstanceSpec(
            instance_name=row["arm_sku_name"], cpu=int(float(row["vcpus"])),
            memory=float(row["memory_gib"]), gpu_count=gpus, gpu_name=name,
            gpu_memory=memory, gpu_vendor=AcceleratorVendor.NVIDIA if gpus else None)
class Offline(gh.AzureProvider):
    def __init__(self, cache_dir):
        self.cache_dir = cache_dir
    def get_specs_and_regions(self):
        return specs, set(regions)
offers = Offline(cache).get()
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "rows": len(offers),
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def gpuhunt_cache(snap: Path) -> Path | None:
    """The snapshot's pages laid out as gpuhunt's page cache (each page a region of one
    page, then an empty page), once; None when gpuhunt is not installed."""
    try:
        import gpuhunt  # noqa: F401
    except ImportError:
        return None
    cache = snap.parent / f"{snap.name}-gpuhunt"
    pages = sorted((snap / "azure" / "retail_prices").glob("*.json"))
    if (cache / "regions.json").exists():
        return cache
    cache.mkdir(parents=True, exist_ok=True)
    for page in pages:
        body = json.loads(page.read_bytes())["body"]
        (cache / f"{page.stem}-00.json").write_text(json.dumps(body, separators=(",", ":")))
        (cache / f"{page.stem}-01.json").write_text('{"Items":[]}')
    (cache / "regions.json").write_text(json.dumps([p.stem for p in pages]))
    return cache


def gpuhunt_argv(snap: Path) -> list[str] | None:
    """The command line of gpuhunt's parse of the snapshot's items, or None without it."""
    cache = gpuhunt_cache(snap)
    if cache is None:
        return None
    return [sys.executable, "-c", GPUHUNT_CHILD, str(cache), str(ROOT / "connectors" / "azure" / "vm_sizes.csv")]


def duckdb_sql(snap: Path) -> str:
    from connectors.azure.parse import ITEM

    item = ", ".join(
        f"{f.name} {'BOOLEAN' if f.dtype == pl.Boolean else 'VARCHAR'}" for f in ITEM.fields
    )
    return DUCKDB_SQL.format(
        files=snap / "azure" / "retail_prices" / "*.json",
        item=item,
        sizes=ROOT / "connectors" / "azure" / "vm_sizes.csv",
    )


def child(code: str, *args: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=False, capture_output=True, text=True, cwd=ROOT
    )
    if out.returncode:
        sys.exit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    # the result is the last line; anything a library drew before it is ignored
    lines = [ln[ln.index("{") :] for ln in out.stdout.splitlines() if "{" in ln]
    if not lines:
        sys.exit(f"benchmark child printed no result:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    return json.loads(lines[-1])


def fresh(warehouse: Path) -> None:
    for p in warehouse.parent.glob(warehouse.name + "*"):
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--page-size", type=int, default=1000)
    args = ap.parse_args()
    t = time.perf_counter()
    snap = generate(args.items, args.page_size)
    print(f"snapshot: {snap} ({time.perf_counter() - t:.1f}s to generate or find)")
    warehouse = OUT / "bench_azure.duckdb"
    fresh(warehouse)
    duck = child(DUCKDB_CHILD, duckdb_sql(snap))
    gh = gpuhunt_argv(snap)
    hunt = child(GPUHUNT_CHILD, *gh[3:]) if gh else None
    new = child(REFRESH_CHILD, str(snap), str(warehouse))
    again = child(REFRESH_CHILD, str(snap), str(warehouse))
    assert new["staged"] == again["staged"] and again["reused"], (new, again)
    stages = ", ".join(f"{k} {v:.2f}" for k, v in new["timings"].items())
    again_stages = ", ".join(f"{k} {v:.2f}" for k, v in again["timings"].items())
    w = 36
    print(f"{'items':<{w}} {args.items:>9,}")
    print(
        f"{'DuckDB read_json, same filter':<{w}} {duck['s']:>9.2f} s {duck['peak_rss_mib']:>7,.0f} MiB"
        f"  ({duck['rows']:,} rows)"
    )
    print(
        f"{'refresh, new warehouse':<{w}} {new['s']:>9.2f} s {new['peak_rss_mib']:>7,.0f} MiB"
        f"  = {new['s'] / duck['s']:.2f}x DuckDB ({new['staged']:,} offers staged)"
    )
    if hunt is None:
        print(f"{'gpuhunt Azure parse':<{w}} not installed (`uv sync --group bench`)")
    else:
        print(
            f"{'gpuhunt Azure parse':<{w}} {hunt['s']:>9.2f} s {hunt['peak_rss_mib']:>7,.0f} MiB"
            f"  (refresh = {new['s'] / hunt['s']:.2f}x gpuhunt; {hunt['rows']:,} offers)"
        )
    print(f"{'  by stage (s)':<{w}} {stages}")
    print(
        f"{'refresh again, every page unchanged':<{w}} {again['s']:>9.2f} s"
        f" {again['peak_rss_mib']:>7,.0f} MiB  = {again['s'] / new['s']:.0%} of a new one"
    )
    print(f"{'  by stage (s)':<{w}} {again_stages}")
    print(
        f"{'published file':<{w}} {new['file_mb']:>9.1f} MB; raw store {new['store_mb']:.1f} MB"
    )


if __name__ == "__main__":
    main()
