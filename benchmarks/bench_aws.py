"""Benchmarks of the AWS connector.

    uv run python -m benchmarks.bench_aws [--points 1000000] [--csv-gib 1.0] [--skip-csv]

(a) N spot price history records in the real DescribeSpotPriceHistory shape (pages of
    1000, newest first, zones mixed) -> a full refresh of a fresh warehouse: read the
    snapshot, land in the raw store, parse (points + current offer per zone), stage,
    views, history, assertions, publish; against DuckDB's bare read_json of the same
    files (typed, de-duplicated, into a table); and the same snapshot refreshed again.
(b) A generated offer CSV of ~1 GiB in the real format (5 metadata lines, the recorded
    header, every non-empty field quoted; ~4% accelerated rows, as in a real region file)
    -> the fetch-time filter to accelerated in-scope rows (a Polars scan of the filter's
    columns finds the rows, one pass copies those lines verbatim), against
    DuckDB scanning and filtering the same file. Each runs in its own child process;
    peak memory is the child's ru_maxrss.

Generated files go under benchmarks/out/ (git-ignored) and are reused.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from connectors.aws.settings import PRICING_PAGE_SIZE
from samples.aws import (
    AWS_OFFER_CSV_HEADER,
    aws_offer_csv_rows,
    aws_offer_csv_text,
    aws_price_list_item,
    aws_spot_price_item,
)

OUT = Path(__file__).parent / "out"
ROOT = Path(__file__).resolve().parent.parent
END = datetime(2026, 11, 20, 2, tzinfo=UTC)
REGIONS = [
    "us-east-1", "us-east-2", "us-west-1", "us-west-2", "ca-central-1", "eu-west-1",
    "eu-west-2", "eu-west-3", "eu-central-1", "eu-north-1", "ap-northeast-1",
    "ap-northeast-2", "ap-south-1", "ap-southeast-1", "ap-southeast-2", "sa-east-1",
]  # fmt: skip
TYPES = [
    "p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge", "p5en.48xlarge",
    "g5.xlarge", "g5.2xlarge", "g5.12xlarge", "g5.48xlarge", "g6.xlarge", "g6.12xlarge",
    "g6e.xlarge", "g6e.12xlarge", "g4dn.xlarge", "g4dn.12xlarge", "g4dn.metal",
    "p3dn.24xlarge", "g6f.large", "g4ad.xlarge", "g5g.xlarge",
]  # fmt: skip
PAGE = 1000


# --- (a) spot history ---------------------------------------------------------------------


def generate_spot(points: int) -> Path:
    root = OUT / f"aws-spot-{points}"
    folder = root / "aws" / "spot_price_history"
    pages = -(-points // PAGE)
    if folder.exists() and len(list(folder.glob("*.json"))) == pages:
        return root
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(3)
    series = [
        (region, f"{region}{zone}", itype)
        for region in REGIONS
        for zone in "abc"
        for itype in TYPES
    ]
    per_series = -(-points // len(series))
    step = timedelta(days=90) / per_series  # AWS keeps 90 days
    by_region: dict[str, list[dict]] = {r: [] for r in REGIONS}
    n = 0
    for k in range(per_series):
        at = END - step * k - timedelta(seconds=rng.randint(0, 59))
        stamp = at.strftime("%Y-%m-%dT%H:%M:%SZ")
        for region, zone, itype in series:
            if n == points:
                break
            price = f"{rng.uniform(0.1, 40.0):.6f}"
            by_region[region].append(aws_spot_price_item(zone, itype, price, stamp))
            n += 1
    page_no = 0
    for region, records in by_region.items():
        chunks = [records[i : i + PAGE] for i in range(0, len(records), PAGE)]
        for i, chunk in enumerate(chunks):
            token = f"{region}-{i + 2}" if i + 1 < len(chunks) else ""
            doc = {
                "fetched_at": "2026-11-20T02:00:00Z",
                "request": {"region": region, "page": i + 1},
                "body": {"SpotPriceHistory": chunk, "NextToken": token},
            }
            (folder / f"{region}-{i + 1:05d}.json").write_text(
                json.dumps(doc, separators=(",", ":"))
            )
            page_no += 1
    return root


SPOT_CHILD = """
import json, resource, sys, time
from pathlib import Path
from connectors.kit import snapshot as kit_snapshot
from flows import pipeline
from warehouse import db
snap, path = Path(sys.argv[1]), Path(sys.argv[2])
t0 = time.perf_counter()
pages = kit_snapshot.read_provider(snap, "aws")  # a generator: landed as read
summary = pipeline.load_and_publish(path, {"aws": pages}, source="bench")
t1 = time.perf_counter()
con = db.connect_readonly(path)
staged = db.run(con, "SELECT count(*) FROM stg_aws__spot_prices")[0][0]
current = db.run(con, "SELECT count(*) FROM mart_gpu_offers_current WHERE provider = 'aws'")[0][0]
con.close()
print(json.dumps({"refresh_s": t1 - t0, "timings": summary.timings,
                  "points_staged": staged, "current_spot_offers": current,
                  "reused": summary.providers[0].reused, "exit_code": summary.exit_code,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

# DuckDB alone: read_json of the same snapshot files with a declared schema, every point
# typed (price, UTC time) and de-duplicated on zone x instance type x time, into a table.
SPOT_DUCKDB_CHILD = """
import json, resource, sys, time
import duckdb
files = sys.argv[1]
con = duckdb.connect()
con.execute("SET memory_limit = '1GB'")
t0 = time.perf_counter()
con.execute(f'''
    CREATE TABLE points AS
    WITH pages AS (
        SELECT fetched_at, request->>'region' AS region, unnest(body.SpotPriceHistory) AS p
        FROM read_json('{files}', format = 'auto', columns = {{
            fetched_at: 'VARCHAR', request: 'JSON',
            body: 'STRUCT(SpotPriceHistory STRUCT(AvailabilityZone VARCHAR,
                   InstanceType VARCHAR, ProductDescription VARCHAR, SpotPrice VARCHAR,
                   "Timestamp" VARCHAR)[], NextToken VARCHAR)'}})
    )
    SELECT DISTINCT ON (p.AvailabilityZone, p.InstanceType, observed_at)
           region, p.AvailabilityZone AS zone, p.InstanceType AS instance_type,
           p.ProductDescription AS product_description,
           p.SpotPrice::DOUBLE AS price_usd_per_hour,
           strptime(p."Timestamp", '%Y-%m-%dT%H:%M:%SZ') AS observed_at,
           fetched_at::TIMESTAMP AS fetched_at
    FROM pages''').fetchall()
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "rows": con.execute("SELECT count(*) FROM points").fetchone()[0],
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# --- price list (bench_cli aws-list) -----------------------------------------------------

# every reservation option a GetProducts item of a current GPU type lists (12), with
# made-up recurring and upfront parts: the shape, not the prices, is what is timed
RESERVED_OPTIONS = {
    (lease, cls, option): (0.0 if option == "All Upfront" else 3.0, 0.0 if option == "No Upfront" else 9000.0)
    for lease in ("1yr", "3yr")
    for cls in ("standard", "convertible")
    for option in ("No Upfront", "Partial Upfront", "All Upfront")
}  # fmt: skip


def generate_price_list(items: int) -> Path:
    """`items` GetProducts items (samples.aws.aws_price_list_item: the recorded shape, on
    demand and 12 reservation options each), one per region x instance type x market
    option, in pages of the connector's page size per region, as `aws/price_list/` of a
    snapshot."""
    root = OUT / f"aws-list-{items}"
    folder = root / "aws" / "price_list"
    combos = [(r, t, m) for m in ("OnDemand", "CapacityBlock") for r in REGIONS for t in TYPES]
    if items > len(combos):
        raise SystemExit(f"at most {len(combos)} distinct price list items")
    if folder.exists() and sum(1 for _ in folder.glob("*.json")):
        return root
    folder.mkdir(parents=True, exist_ok=True)
    by_region: dict[str, list[str]] = {r: [] for r in REGIONS}
    for n, (region, itype, market) in enumerate(combos[:items]):
        item = aws_price_list_item(
            instance_type=itype, region=region, vcpus=8 + n % 184, memory_gib=32 + n % 2000,
            gpus=1 + n % 8, on_demand=round(1.0 + n % 97 * 0.37, 4),
            reserved=RESERVED_OPTIONS, market_option=market,
        )  # fmt: skip
        by_region[region].append(item)
    for region, listed in by_region.items():
        for i in range(0, len(listed), PRICING_PAGE_SIZE):
            page = i // PRICING_PAGE_SIZE + 1
            doc = {
                "fetched_at": "2026-11-20T02:00:00Z",
                "request": {"region": region, "page": page},
                "body": {"FormatVersion": "aws_v1", "PriceList": listed[i : i + PRICING_PAGE_SIZE]},
            }
            name = f"{region}-{page:04d}.json"
            (folder / name).write_text(json.dumps(doc, separators=(",", ":")))
    return root


# DuckDB alone: read_json of the same pages, each item (a JSON text) read as JSON once for
# its SKU, type, region and terms, into a table: the floor of reading these bytes
LIST_DUCKDB_CHILD = """
import json, resource, sys, time
import duckdb
files = sys.argv[1]
con = duckdb.connect()
t0 = time.perf_counter()
con.execute(f'''
    CREATE TABLE items AS
    WITH pages AS (
        SELECT fetched_at, unnest(body.PriceList)::JSON AS item
        FROM read_json('{files}', format = 'auto', columns = {{
            fetched_at: 'VARCHAR', request: 'JSON',
            body: 'STRUCT(FormatVersion VARCHAR, PriceList VARCHAR[])'}})
    )
    SELECT item->>'$.product.sku' AS sku,
           item->>'$.product.attributes.instanceType' AS instance_type,
           item->>'$.product.attributes.regionCode' AS region,
           item->'$.terms' AS terms, fetched_at::TIMESTAMP AS fetched_at
    FROM pages''').fetchall()
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "rows": con.execute("SELECT count(*) FROM items").fetchone()[0],
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


# --- (b) offer CSV ------------------------------------------------------------------------------


def _line(row: dict[str, str]) -> str:
    return ",".join(
        '"' + row[h].replace('"', '""') + '"' if row.get(h) else "" for h in AWS_OFFER_CSV_HEADER
    )


def generate_csv(gib: float) -> tuple[Path, int]:
    """A region offer file of ~`gib` GiB: accelerated products (~4% of rows, in and out
    of scope) among general-purpose ones, every product with its on-demand and reserved
    rows, in the recorded format."""
    path = OUT / f"aws-offer-{gib:g}gib.csv"
    meta = path.with_suffix(".json")
    if path.exists() and meta.exists():
        return path, json.loads(meta.read_text())["accelerated_in_scope"]
    OUT.mkdir(exist_ok=True)
    reserved = {
        ("1yr", "standard", "No Upfront"): (0.6, 0.0),
        ("1yr", "standard", "Partial Upfront"): (0.3, 2600.0),
        ("1yr", "standard", "All Upfront"): (0.0, 5100.0),
        ("3yr", "convertible", "No Upfront"): (0.5, 0.0),
        ("3yr", "convertible", "Partial Upfront"): (0.25, 6500.0),
        ("3yr", "convertible", "All Upfront"): (0.0, 12800.0),
    }
    variants = [
        {},
        {"operating_system": "Windows"},
        {"operating_system": "RHEL"},
        {"tenancy": "Dedicated"},
        {"capacity_status": "UnusedCapacityReservation"},
    ]
    target = int(gib * (1 << 30))
    header = aws_offer_csv_text([]).rstrip("\n")
    written = len(header) + 1
    kept = 0
    n = 0
    with path.open("w") as fh:
        fh.write(header + "\n")
        while written < target:
            accelerated = n % 25 == 0
            family, itype, gpus = (
                ("GPU instance", TYPES[n % len(TYPES)], 8)
                if accelerated
                else ("General purpose", f"m{5 + n % 3}.{n % 9 + 1}xlarge", None)
            )
            variant = variants[(n // 25) % len(variants)]
            rows = aws_offer_csv_rows(
                instance_type=itype,
                region=REGIONS[n % len(REGIONS)],
                vcpus=4,
                memory_gib=16,
                gpus=gpus,
                on_demand=round(0.1 + (n % 997) / 100, 4),
                reserved=reserved,
                instance_family=family,
                **variant,
            )
            for row in rows:
                row["SKU"] = f"{n:016X}"
                line = _line(row) + "\n"
                fh.write(line)
                written += len(line)
                kept += accelerated and not variant
            n += 1
    meta.write_text(json.dumps({"accelerated_in_scope": kept, "bytes": written}))
    return path, kept


FILTER_CHILD = """
import json, resource, sys, time
from pathlib import Path
from connectors.aws import fetch
src, dst = Path(sys.argv[1]), Path(sys.argv[2])
t0 = time.perf_counter()
rows = fetch.filter_offer_csv(src, dst)
t1 = time.perf_counter()
print(json.dumps({"s": t1 - t0, "rows": rows,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""

DUCKDB_CHILD = """
import json, resource, sys, time
import duckdb
src, dst = sys.argv[1], sys.argv[2]
con = duckdb.connect()
t0 = time.perf_counter()
con.execute(f'''
    COPY (
        SELECT * FROM read_csv('{src}', skip = 5, header = true, all_varchar = true)
        WHERE (coalesce("GPU", '') NOT IN ('', 'NA', '0')
               OR "Instance Family" IN ('GPU instance', 'Machine Learning ASIC Instances')
               OR regexp_matches("Instance Type", '^(p|g|trn|inf|dl)[0-9a-z-]*\\\\.'))
          AND "Product Family" IN ('Compute Instance', 'Compute Instance (bare metal)')
          AND "Operating System" = 'Linux' AND "Tenancy" = 'Shared'
          AND coalesce("Pre Installed S/W", '') IN ('NA', '')
          AND "CapacityStatus" = 'Used'
          AND coalesce("License Model", '') IN ('No License required', '')
          AND coalesce("MarketOption", '') IN ('OnDemand', '')
          AND coalesce("Currency", '') IN ('USD', '')
    ) TO '{dst}' (HEADER, FORMAT csv)''').fetchall()
t1 = time.perf_counter()
rows = con.execute(f"SELECT count(*) FROM read_csv('{dst}', header = true)").fetchone()[0]
print(json.dumps({"s": t1 - t0, "rows": rows,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


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


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--csv-gib", type=float, default=1.0)
    ap.add_argument("--skip-csv", action="store_true")
    ap.add_argument("--skip-spot", action="store_true")
    args = ap.parse_args()
    results = []
    if not args.skip_spot:
        t = time.perf_counter()
        snap = generate_spot(args.points)
        print(f"spot snapshot: {snap} ({time.perf_counter() - t:.1f}s to generate or find)")
        warehouse = OUT / "bench_aws.duckdb"
        for p in OUT.glob("bench_aws.duckdb*"):
            if p.is_dir():
                shutil.rmtree(p)
            else:
                p.unlink()
        duck = child(SPOT_DUCKDB_CHILD, str(snap / "aws" / "spot_price_history" / "*.json"))
        r = child(SPOT_CHILD, str(snap), str(warehouse))
        again = child(SPOT_CHILD, str(snap), str(warehouse))
        assert r["points_staged"] == args.points == duck["rows"], (r, duck)
        assert again["reused"], again
        results += [
            ("spot: DuckDB read_json, typed + de-duplicated, into a table", duck["s"],
             duck["peak_rss_mib"]),
            (f"spot: full refresh, new warehouse ({r['refresh_s'] / duck['s']:.2f}x DuckDB)",
             r["refresh_s"], r["peak_rss_mib"]),
            (f"spot: same snapshot again ({again['refresh_s'] / r['refresh_s']:.0%} of new)",
             again["refresh_s"], again["peak_rss_mib"]),
        ]
        stages = ", ".join(f"{k} {v:.2f}" for k, v in r["timings"].items())
        print(
            f"spot: {r['points_staged']:,} points staged, {r['current_spot_offers']:,} current "
            f"offers, {args.points / r['refresh_s']:,.0f} points/s; stages (s): {stages}"
        )
    if not args.skip_csv:
        t = time.perf_counter()
        src, expected = generate_csv(args.csv_gib)
        size = src.stat().st_size
        print(f"offer CSV: {src} ({size / (1 << 30):.2f} GiB, {time.perf_counter() - t:.1f}s)")
        ours = child(FILTER_CHILD, str(src), str(OUT / "filtered-polars.csv"))
        duck = child(DUCKDB_CHILD, str(src), str(OUT / "filtered-duckdb.csv"))
        assert ours["rows"] == duck["rows"] == expected, (ours, duck, expected)
        results += [
            (
                "offer CSV: our filter (projected Polars scan + verbatim line copy)",
                ours["s"],
                ours["peak_rss_mib"],
            ),
            ("offer CSV: DuckDB read_csv + COPY, same filter", duck["s"], duck["peak_rss_mib"]),
        ]
        print(
            f"offer CSV: {ours['rows']:,} rows kept by both; ours / DuckDB = "
            f"{ours['s'] / duck['s']:.2f}x time, {size / ours['s'] / (1 << 20):,.0f} MiB/s"
        )
    print()
    print(f"{'benchmark':<70} {'seconds':>8} {'peak RSS MiB':>13}")
    for name, seconds, rss in results:
        print(f"{name:<70} {seconds:>8.2f} {'' if rss is None else f'{rss:,.0f}':>13}")


if __name__ == "__main__":
    main()
