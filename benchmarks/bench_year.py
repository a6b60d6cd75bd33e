"""A nightly AWS spot refresh after 30 days and after a year of stored history.

    uv run python -m benchmarks.bench_year [--days 30 365] [--runs 3] [--out DIR]
        [--tree before=DIR]   # also an earlier commit's files, in the same pairs

The work timed is the refresh a scheduled night runs: `gpu-pricing refresh --snapshot NIGHT
--providers aws --warehouse W --json` (a whole process, start-up included), where NIGHT
holds one day of spot price history (960 series: 16 regions x 3 zones x 20 instance types,
a point every ~58 minutes, 24,000 points, in the real DescribeSpotPriceHistory pages of
`samples.aws`), on a warehouse that already holds DAYS days of the same series: 365 days are
8.8M points, 30 days 0.72M.

Each stored history is built once (and reused from --out): the day before the timed night
is refreshed through the command line into a new warehouse (so its ledger, raw store,
staged tables and marts are a refresh's own), then the older days are added to the staged
points table with one SQL insert of the same series at the same rate (a refresh of 8.8M
points from pages would take longer than the benchmark itself, and stores the same rows).
Each repetition copies both warehouses (file and raw store) and refreshes the copies back to
back, so the ratio is taken within one pair. `--tree LABEL=DIR` runs another checkout's files
(e.g. `git archive REV | tar -x -C DIR`) with this environment's packages on histories of
its own, built by its code, in the same pairs. Reported: the median, min and max of wall and
CPU seconds and peak memory (os.wait4), the refresh's own stage timers, the year / 30-day
ratios, and the load average before and after (a warning when it is above half the
processors).
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from benchmarks import readme_rows
from benchmarks.bench_aws import PAGE, REGIONS, TYPES
from benchmarks.bench_cli import (
    ROOT,
    load,
    loaded,
    paired,
    report,
    run,
    tree_command,
)
from samples.aws import aws_spot_price_item

# the timed night ends here; a point every 1/25 day per series
END = datetime(2026, 11, 20, 2, tzinfo=UTC)
PER_DAY = 25
SERIES = [(region, f"{region}{zone}", itype) for region in REGIONS for zone in "abc"
          for itype in TYPES]  # fmt: skip


def night(out: Path, ends: datetime) -> Path:
    """A snapshot of the day of points before `ends`, newest first, paged by region."""
    root = out / f"night-{ends:%Y%m%dT%H}"
    folder = root / "aws" / "spot_price_history"
    if (root / ".done").exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    folder.mkdir(parents=True)
    rng = random.Random(ends.toordinal())
    step = timedelta(days=1) / PER_DAY
    by_region: dict[str, list[dict]] = {r: [] for r in REGIONS}
    for k in range(PER_DAY):
        stamp = (ends - step * k - timedelta(seconds=rng.randint(1, 59))).strftime(
            "%Y-%m-%dT%H:%M:%SZ"
        )
        for region, zone, itype in SERIES:
            price = f"{rng.uniform(0.1, 40.0):.6f}"
            by_region[region].append(aws_spot_price_item(zone, itype, price, stamp))
    for region, records in by_region.items():
        chunks = [records[i : i + PAGE] for i in range(0, len(records), PAGE)]
        for i, chunk in enumerate(chunks):
            doc = {
                "fetched_at": ends.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "request": {"region": region, "page": i + 1},
                "body": {
                    "SpotPriceHistory": chunk,
                    "NextToken": f"{region}-{i + 2}" if i + 1 < len(chunks) else "",
                },
            }
            (folder / f"{region}-{i + 1:05d}.json").write_text(json.dumps(doc))
    (root / ".done").touch()
    return root


# the days before the first refreshed night, at the same rate and in the rows the parse
# stages: each point in the load of the night after it (fetched then, its load id that
# night's time and region, as a nightly refresh names its loads), so a night's checks
# find the year's points in other loads, as they would (the loads are not in the ledger:
# no page of theirs is stored)
HISTORY_SQL = """
INSERT INTO stg_aws__spot_prices BY NAME
WITH series AS (
    SELECT * FROM (VALUES {series}) AS s(region, zone, instance_type)
), points AS (
    -- from the point's series and place, not random(): two trees' histories are the same
    -- rows, so their nights can be compared row for row
    SELECT s.*, round(0.1 + hash(s.zone, s.instance_type, k) % 39900000 / 1e6, 6)
               AS price_usd_per_hour,
           $first - to_microseconds(CAST(k * 86400000000 / {per_day} AS BIGINT))
               - to_seconds(CAST(k % 59 + 1 AS BIGINT)) AS observed_at
    FROM series s, range(1, $points_per_series + 1) AS r(k)
)
SELECT 'aws' AS provider, region, zone, instance_type,
       'Linux/UNIX' AS product_description, price_usd_per_hour, observed_at,
       'spot_price_history' AS endpoint,
       strftime(date_trunc('day', observed_at) + INTERVAL 26 HOUR, '%Y%m%dT%H%M%S.000000Z')
           || '-history:aws:spot_price_history:' || region AS load_id,
       date_trunc('day', observed_at) + INTERVAL 26 HOUR AS fetched_at,
       'api' AS provenance  -- as staging states a point of the provider's own pages
FROM points
ORDER BY observed_at  -- stored in time order, as nightly appends store them
"""


HISTORY_CHILD = """
import sys
import duckdb
path, sql, per_series = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = duckdb.connect(path)
con.execute("SET enable_progress_bar = false")
oldest = con.execute("SELECT min(observed_at) FROM stg_aws__spot_prices").fetchone()[0]
con.execute(sql, {"first": oldest, "points_per_series": per_series})
# what a refresh keeps of the older points for the spot statistics, as a night would have
from warehouse import spot_openings
spot_openings.advance(con, None)
# and each series' newest row, as a night keeps it (warehouse.series_newest)
from connectors import registry
from warehouse import series_newest
for table, series in registry.get("aws").series_tables:
    series_newest.read(con, table.name, series.series, series.time)
con.execute("CHECKPOINT")
points = con.execute("SELECT count(*) FROM stg_aws__spot_prices").fetchone()[0]
print(f"history: {points:,} points in {path}", flush=True)
"""


DIGESTS = """
from warehouse.staging import code_digest, sql_digest
print(f"{code_digest('aws')[:8]}-{sql_digest()[:8]}")
"""


def history(out: Path, days: int, label: str = "", tree: Path | None = None) -> Path:
    """A warehouse (and its raw store) holding `days` days of spot history up to the day
    before the timed night, built by the code of `tree` (None: this checkout): a change of
    the parsing code re-parses the stored pages, which hold only the first night (the rest
    was inserted)."""
    cli, env = tree_command(tree)
    # by this code and SQL: a refresh whose SQL changed since the last one checks every row
    tag = subprocess.run(
        [sys.executable, "-c", DIGESTS], env=env, cwd=tree, capture_output=True, text=True,
        check=True,
    ).stdout.strip()  # fmt: skip
    warehouse = out / f"year-{days}d-{label + '-' if label else ''}{tag}" / "base.duckdb"
    if (warehouse.parent / ".done").exists():
        return warehouse
    shutil.rmtree(warehouse.parent, ignore_errors=True)
    warehouse.parent.mkdir(parents=True)
    first = night(out, END - timedelta(days=1))
    run([*cli, "refresh", "--snapshot", str(first), "--providers", "aws",
         "--warehouse", str(warehouse), "--json"], env, cwd=tree or ROOT)  # fmt: skip
    # in a child: a process's peak memory is inherited by the children it starts later
    values = ", ".join(f"('{r}', '{z}', '{t}')" for r, z, t in SERIES)
    sql = HISTORY_SQL.format(series=values, per_day=PER_DAY)
    subprocess.run(
        [sys.executable, "-c", HISTORY_CHILD, str(warehouse), sql, str((days - 1) * PER_DAY)],
        check=True, env=env, cwd=tree,
    )  # fmt: skip
    (warehouse.parent / ".done").touch()
    return warehouse


def copy_of(base: Path, target: Path) -> None:
    for p in target.parent.glob(target.name + "*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    shutil.copyfile(base, target)
    store = base.with_name(base.name + ".raw")
    if store.is_dir():
        shutil.copytree(store, target.with_name(target.name + ".raw"))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--days", type=int, nargs="+", default=[30, 365])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "gpu-pricing-bench"))
    ap.add_argument("--tree", action="append", default=[], metavar="LABEL=DIR",
                    help="also run another checkout's files (with this environment)")  # fmt: skip
    ap.add_argument("--readme", action="store_true",
                    help="write the row of README's speed table this run gives into README.md")  # fmt: skip
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    trees = [("", None)] + [
        (label, Path(tree).resolve()) for label, tree in (t.split("=", 1) for t in args.tree)
    ]
    tonight = night(out, END)
    bases = {
        (label, days): history(out, days, label, tree)
        for label, tree in trees
        for days in args.days
    }
    print(f"nightly spot refresh after {args.days} days; load average before: {load()}")
    if loaded():
        print("WARNING: the machine is loaded (load average above half the processors): "
              "the figures are noisy; compare the ratios, not the seconds")  # fmt: skip
    targets = {key: base.with_name("night.duckdb") for key, base in bases.items()}

    def prepare() -> None:
        for key, base in bases.items():
            copy_of(base, targets[key])

    def refresh(label: str, tree: Path | None, days: int):
        cli, env = tree_command(tree)
        argv = [*cli, "refresh", "--snapshot", str(tonight), "--providers", "aws",
                "--warehouse", str(targets[(label, days)]), "--json"]  # fmt: skip
        return lambda: run(argv, env, cwd=tree or ROOT)

    def name(label: str, days: int) -> str:
        return f"{label + ': ' if label else ''}after {days} days"

    got = paired(
        args.runs,
        {name(label, d): refresh(label, tree, d) for label, tree in trees for d in args.days},
        prepare,
    )
    ratios = {}
    shortest = min(args.days)
    for label, _ in trees:
        for days in args.days:
            if days == shortest:
                continue
            a, b = got[name(label, days)], got[name(label, shortest)]
            for key, unit in (("wall_s", "wall"), ("cpu_s", "cpu"), ("peak_mib", "peak memory")):
                ratios[f"{label + ': ' if label else ''}{days} / {shortest} days ({unit})"] = [
                    x[key] / y[key] for x, y in zip(a, b, strict=True)
                ]
    report("nightly spot refresh (one day, 24,000 points)", got, ratios)
    longest = max(args.days)
    if longest != shortest:
        row = readme_rows.year_row(
            longest, shortest, got[name("", longest)], got[name("", shortest)]
        )
        readme_rows.show([row], readme_rows.README if args.readme else None)
    for (label, days), target in targets.items():
        print(f"{name(label, days)}: published file {target.stat().st_size / 1e6:.1f} MB")
    print(f"load average after: {load()}")
    if loaded():
        print("WARNING: the machine was loaded during the run")


if __name__ == "__main__":
    main()
