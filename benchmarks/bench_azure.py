"""Benchmark: N Azure Retail Prices items in the real shape -> parse + load + views.

    uv run python -m benchmarks.bench_azure [--items 1000000] [--page-size 1000]

Generates a snapshot under benchmarks/out/ (once), then refreshes a fresh warehouse from
it in a child process and reports wall time per stage, rows per second and the child's
peak resident memory (ru_maxrss). The generated regions and sizes cycle through the real
families, so the parse does the real work (family map, specs join, exclusions, reserved
conversion).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

from benchmarks.shapes import azure_retail_item, azure_retail_page

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


CHILD = """
import json, resource, sys, time
from pathlib import Path
from connectors import _snapshot
from connectors._normalise import normalise
from connectors.azure import parse
from flows import pipeline
from warehouse import db, raw
t0 = time.perf_counter()
t1 = time.perf_counter()
# a generator: pages are read and landed one at a time, as a live fetch streams them
pages = _snapshot.read_provider(Path(sys.argv[1]), "azure")
summary = pipeline.load_and_publish(Path(sys.argv[2]), {"azure": pages}, source="bench")
t2 = time.perf_counter()
refresh_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
con = db.connect_readonly(Path(sys.argv[2]))
frame = raw.current_pages(con, "azure", {"retail_prices": "snapshot"})
t3 = time.perf_counter()
result = normalise(parse.parse(frame))
t4 = time.perf_counter()
offers = db.run(con, "SELECT count(*) FROM mart_gpu_offers_current")[0][0]
print(json.dumps({"timings": summary.timings, "refresh_s": t2 - t1, "read_raw_s": t3 - t2,
                  "parse_normalise_s": t4 - t3, "staged": summary.providers[0].loaded,
                  "excluded": summary.providers[0].excluded, "current_offers": offers,
                  "peak_rss_mib": refresh_rss,
                  "peak_rss_after_unbatched_parse_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=1_000_000)
    ap.add_argument("--page-size", type=int, default=1000)
    args = ap.parse_args()
    t = time.perf_counter()
    snap = generate(args.items, args.page_size)
    print(f"snapshot: {snap} ({time.perf_counter() - t:.1f}s to generate or find)")
    warehouse = OUT / "bench_azure.duckdb"
    for p in OUT.glob("bench_azure.duckdb*"):
        p.unlink()
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(snap), str(warehouse)],
        check=False,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if out.returncode:
        sys.exit(f"benchmark child failed:\n{out.stderr[-3000:]}")
    r = json.loads(out.stdout.strip().splitlines()[-1])
    stages = ", ".join(f"{k} {v:.2f}" for k, v in r["timings"].items())
    print(f"items                         {args.items:>10,}")
    print(
        f"refresh, end to end           {r['refresh_s']:>10.2f} s  ({args.items / r['refresh_s']:,.0f} items/s)"
    )
    print(f"  by stage (s)                {stages}")
    print("  (land includes reading the snapshot files; parse_stage = parse + normalise + stage)")
    print(
        f"parse + normalise alone       {r['parse_normalise_s']:>10.2f} s  (all pages at once, not batched)"
    )
    print(
        f"staged offers                 {r['staged']:>10,}  (excluded {r['excluded']:,}: Windows, Low Priority)"
    )
    print(f"peak RSS of the refresh       {r['peak_rss_mib']:>10,.0f} MiB")
    print(f"peak RSS incl. unbatched parse{r['peak_rss_after_unbatched_parse_mib']:>10,.0f} MiB")


if __name__ == "__main__":
    main()
