"""Growth benchmark: N simulated nights of an Azure Retail Prices walk into one warehouse.

    uv run python -m benchmarks.bench_growth [--items 200000] [--nights 30] [--regions 20]
        [--prices list|regional] [--out DIR] [--json FILE]

Night 0 is a full walk of `--items` items in the real shape, `--regions` walks paged by
1000 items ($skip paging: a page's request is its region and page number). Its prices:
`list` (the default) gives each of the 5 sizes x 6 variants one price everywhere, 30
distinct prices over all items, which compress to almost nothing until the nights give
more and more items a price of their own (the warehouse then grows with no more rows);
`regional` gives each location its own price level and each spot item its own discount,
as a real walk's prices differ by region, so night 0 is as varied as the later nights
(`base_items`). Every later
night 1% of prices change (new price, new effectiveStartDate, as the API publishes them),
spread over the walk as the real API does, so nearly every page's hash changes; every
fifth night a few items are inserted into and removed from some regions, which shifts
every later page of those walks. Each night refreshes the same warehouse in a child
process and reports: refresh time (and by stage), the published file's size (and how
much of it is free blocks, kept for the next build), the raw store's size, the child's
peak RSS, an analyst query's time (`select * from mart_cheapest_gpu_hour`, a new
read-only connection), the size of a compact copy of the file (`COPY FROM DATABASE`, as
the refresh's compaction writes it: the data without free blocks), the refresh's CPU
seconds and the load average. The growth a night is the least-squares slope over nights
1..N.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from benchmarks.bench_azure import SIZES, VARIANTS
from samples.azure import azure_retail_item, azure_retail_page

OUT = Path(__file__).parent / "out"
ROOT = Path(__file__).resolve().parent.parent
# nights end yesterday: a refresh closes delisted offers at the wall-clock time
START = datetime.now(UTC).replace(hour=2, minute=0, second=0, microsecond=0)
PAGE = 1000

NIGHT_CHILD = """
import json, os, resource, sys, time
from pathlib import Path
import duckdb
from connectors.kit import snapshot as kit_snapshot
from flows import pipeline
from warehouse import db
from warehouse.rawstore import RawStore
snap, path = Path(sys.argv[1]), Path(sys.argv[2])
t0, c0 = time.perf_counter(), time.process_time()
summary = pipeline.load_and_publish(path, {"azure": kit_snapshot.read_provider(snap, "azure")},
                                    source="growth")
t1, c1 = time.perf_counter(), time.process_time()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
con = duckdb.connect(str(path), read_only=True)
con.execute("SET enable_progress_bar = false")
t2 = time.perf_counter()
rows = len(con.execute("select * from mart_cheapest_gpu_hour").fetchall())
t3 = time.perf_counter()
history = con.execute("select count(*) from snp_offers_history").fetchone()[0]
free, block = con.execute("select free_blocks, block_size from pragma_database_size()").fetchone()


def relation_blocks(con):
    # per stored table, the blocks its segments occupy (a block holds segments of one
    # table; small segments of several of its columns share one)
    tables = con.execute(
        "select table_name from duckdb_tables() where database_name = current_database()"
    ).fetchall()
    blocks = {}
    for (table,) in tables:
        (n,) = con.execute(
            "select count(distinct b) from ("
            f"select block_id as b from pragma_storage_info('{table}') "
            "where persistent and block_id >= 0 union all "
            f"select unnest(additional_block_ids) from pragma_storage_info('{table}'))"
        ).fetchone()
        if n:
            blocks[table] = n
    return blocks


file_blocks = relation_blocks(con)
con.close()
# the same file copied compactly (what the refresh's compaction writes): its size is the
# data the file holds, without the free blocks a build leaves
compact = Path(str(path) + ".bench-compact")
compact.unlink(missing_ok=True)
con = duckdb.connect()
con.execute(f"ATTACH '{path}' AS src (READ_ONLY)")
con.execute(f"ATTACH '{compact}' AS dst (STORAGE_VERSION '{db.STORAGE_COMPATIBILITY}')")
con.execute("COPY FROM DATABASE src TO dst")
con.execute("DETACH dst")
con.close()
con = duckdb.connect(str(compact), read_only=True)
compact_blocks = relation_blocks(con)
con.close()
compact_mb = compact.stat().st_size / 1e6
compact.unlink()
print(json.dumps({"s": t1 - t0, "cpu_s": c1 - c0, "load": os.getloadavg()[0], "timings": summary.timings, "query_s": t3 - t2, "rows": rows,
                  "history_rows": history, "opened": summary.history.get("opened", 0),
                  "pages": summary.providers[0].fetched,
                  "unchanged": summary.providers[0].unchanged,
                  "file_mb": path.stat().st_size / 1e6, "free_mb": free * block / 1e6, "compact_mb": compact_mb,
                  "store_mb": RawStore.beside(path).size_bytes() / 1e6, "peak_rss_mib": rss,
                  "blocks": {t: [file_blocks.get(t, 0), compact_blocks.get(t, 0)]
                             for t in sorted(set(file_blocks) | set(compact_blocks))}}))
"""


def base_items(items: int, regions: int, prices: str = "list", seed: int = 11) -> list[list[dict]]:
    """Night 0: the items of each region's walk. `prices`: "list" gives every location a
    size's list price (5 sizes x 6 variants: 30 distinct prices over all items); "regional"
    gives each location its own price level and each spot item its own discount, as a
    real walk has (a VM size's price differs by region; spot prices by region and size)."""
    rng = random.Random(seed)
    walks: list[list[dict]] = [[] for _ in range(regions)]
    level = 1.0
    for n in range(items):
        arm, display, series, price = SIZES[n % len(SIZES)]
        variant = VARIANTS[(n // len(SIZES)) % len(VARIANTS)]
        # distinct locations keep offers distinct, as a full crawl's are
        block = n // (len(SIZES) * len(VARIANTS))
        location = f"loc{block:06d}"
        scale = 8760 if variant.get("term") == "1 Year" else 26280 if variant.get("term") else 1
        if prices == "regional":
            if n % (len(SIZES) * len(VARIANTS)) == 0:
                level = rng.uniform(0.85, 1.45)
            scale *= level * (rng.uniform(0.1, 0.4) if variant.get("suffix") == " Spot" else 1)
        walks[n % regions].append(
            azure_retail_item(
                arm_sku=arm,
                display=display,
                series=series,
                region=location,
                location=location,
                price=round(price * scale, 4),
                **variant,
            )
        )
    return walks


def next_night(walks: list[list[dict]], night: int, rng: random.Random) -> None:
    """1% of prices move; every fifth night some items come and go (shifting pages)."""
    when = (START + timedelta(days=night)).strftime("%Y-%m-%dT00:00:00Z")
    total = sum(len(w) for w in walks)
    for _ in range(total // 100):
        walk = walks[rng.randrange(len(walks))]
        item = walk[rng.randrange(len(walk))]
        item["retailPrice"] = item["unitPrice"] = round(
            item["retailPrice"] * rng.uniform(0.9, 1.1), 4
        )
        item["effectiveStartDate"] = when
    if night % 5 == 0:
        for walk in rng.sample(walks, max(1, len(walks) // 4)):
            at = rng.randrange(len(walk))
            new = dict(walk[at])
            new["meterId"] = f"{new['meterId'][:-6]}{night:06d}"
            new["armRegionName"] = new["location"] = f"{new['location']}-n{night}"
            new["effectiveStartDate"] = when
            walk.insert(at, new)
            del walk[rng.randrange(len(walk))]


def write_night(walks: list[list[dict]], night: int, folder: Path) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    fetched = (START + timedelta(days=night)).strftime("%Y-%m-%dT%H:%M:%SZ")
    for r, walk in enumerate(walks):
        region = f"region{r:02d}"
        for page, at in enumerate(range(0, len(walk), PAGE)):
            doc = {
                "fetched_at": fetched,
                "request": {"region": region, "page": page + 1, "skip": at},
                "body": azure_retail_page(walk[at : at + PAGE], None),
            }
            (folder / f"{region}-{page + 1:04d}.json").write_bytes(orjson.dumps(doc))


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
    ap.add_argument("--items", type=int, default=200_000)
    ap.add_argument("--nights", type=int, default=30)
    ap.add_argument("--regions", type=int, default=20)
    ap.add_argument(
        "--prices",
        choices=["list", "regional"],
        default="list",
        help="night 0's prices: one list price per size and variant everywhere, or each "
        "location's own (see base_items)",
    )
    ap.add_argument("--json", type=Path, help="also write every night's figures here")
    ap.add_argument("--out", type=Path, default=OUT, help="folder for the snapshot and warehouse")
    args = ap.parse_args()
    global START
    START -= timedelta(days=args.nights + 1)
    rng = random.Random(7)
    out = args.out
    snap = out / "growth-snapshot"
    warehouse = out / "bench_growth.duckdb"
    for p in out.glob("bench_growth.duckdb*"):
        if p.is_dir():
            shutil.rmtree(p)
        else:
            p.unlink()
    walks = base_items(args.items, args.regions, args.prices)
    header = (
        f"{'night':>5} {'refresh s':>9} {'land':>5} {'parse':>5} {'hist':>5} {'pages':>11} "
        f"{'opened':>7} {'file MB':>8} {'free MB':>8} {'compact':>8} {'store MB':>9} {'RSS MiB':>8} "
        f"{'query ms':>9} {'cpu s':>6} {'load':>5}"
    )
    print(header)
    nights = []
    for night in range(args.nights + 1):
        if night:
            next_night(walks, night, rng)
        write_night(walks, night, snap / "azure" / "retail_prices")
        r = child(NIGHT_CHILD, str(snap), str(warehouse))
        t = r["timings"]
        nights.append({"night": night, **r})
        print(
            f"{night:>5} {r['s']:>9.2f} {t.get('land', 0):>5.2f} {t.get('parse_stage', 0):>5.2f} "
            f"{t.get('history', 0):>5.2f} {r['pages'] - r['unchanged']:>5}/{r['pages']:<5} "
            f"{r['opened']:>7,} {r['file_mb']:>8.1f} {r['free_mb']:>8.1f} {r['compact_mb']:>8.1f} "
            f"{r['store_mb']:>9.1f} {r['peak_rss_mib']:>8,.0f} {r['query_s'] * 1000:>9.1f} "
            f"{r['cpu_s']:>6.2f} {r['load']:>5.1f}",
            flush=True,
        )
    if args.json:
        args.json.write_text(json.dumps(nights, indent=1))
    if len(nights) > 2:
        # night 0 builds from nothing; from night 1 the file holds a build's working room
        # (DuckDB reuses freed blocks and cuts free ones off the end), so its size goes up
        # and down by a few blocks a night: the growth is the slope of a least-squares line
        # over nights 1..N, of the file and of the part of it in use
        later = nights[1:]
        x = [n["night"] for n in later]
        slope = {
            key: statistics.linear_regression(x, [f(n) for n in later]).slope
            for key, f in [
                ("file", lambda n: n["file_mb"]),
                ("used", lambda n: n["file_mb"] - n["free_mb"]),
                ("compact", lambda n: n["compact_mb"]),
                ("store", lambda n: n["store_mb"]),
            ]
        }
        first, last = later[0], later[-1]
        print(
            f"night {last['night']} / night 1 refresh time: {last['s'] / first['s']:.2f}x; "
            f"published file {slope['file']:+.2f} MB a night ({slope['used']:+.2f} MB in use, "
            f"{slope['compact']:+.2f} MB its compact copy); "
            f"raw store {slope['store']:+.2f} MB a night (least-squares slopes over nights 1-"
            f"{last['night']})"
        )
        relations(later)


def relations(later: list[dict]) -> None:
    """Per stored table, its blocks in the file and in the compact copy at the first and
    last night, and their least-squares slope (blocks a night): where the growth is."""
    x = [n["night"] for n in later]
    first, last = later[0], later[-1]
    names = sorted({t for n in later for t in n["blocks"]})
    rows = []
    for t in names:
        file_, compact = ([n["blocks"].get(t, [0, 0])[i] for n in later] for i in (0, 1))
        rows.append((t, file_, compact))
    print(
        f"{'blocks (256 KiB) per table':<34} "
        f"{'file ' + str(first['night']):>8} {'file ' + str(last['night']):>8} {'a night':>8} "
        f"{'compact ' + str(first['night']):>10} {'compact ' + str(last['night']):>10} {'a night':>8}"
    )
    for t, file_, compact in sorted(rows, key=lambda r: -r[1][-1]):
        if max(file_ + compact) == 0:
            continue
        fs = statistics.linear_regression(x, file_).slope
        cs = statistics.linear_regression(x, compact).slope
        print(
            f"{t:<34} {file_[0]:>8} {file_[-1]:>8} {fs:>+8.2f} {compact[0]:>10} "
            f"{compact[-1]:>10} {cs:>+8.2f}"
        )
    free = [round(n["free_mb"] * 1e6 / (256 * 1024)) for n in later]
    print(
        f"{'(free blocks)':<34} {free[0]:>8} {free[-1]:>8} "
        f"{statistics.linear_regression(x, free).slope:>+8.2f}"
    )


if __name__ == "__main__":
    main()
