"""Whole-process benchmarks through the command line, paired with DuckDB's bare scan.

    uv run python -m benchmarks.bench_cli azure [--items 1000000] [--runs 3] [--out DIR]
    uv run python -m benchmarks.bench_cli aws [--points 1000000] [--runs 3] [--out DIR]
    uv run python -m benchmarks.bench_cli aws-list [--items 640] [--runs 3] [--out DIR]
    uv run python -m benchmarks.bench_cli demo [--runs 5]
    ... [--tree before=DIR]   # also an earlier commit's files, in the same pairs

What a user runs is timed from outside, start-up included: `gpu-pricing refresh
--snapshot DIR --providers NAME --warehouse W --json` on a new warehouse, then again on the
same snapshot (every page unchanged). The yardstick is DuckDB's bare `read_json` of the same
pages (typed, filtered, into a table; benchmarks.bench_azure / bench_aws), also a whole
process. Each repetition runs the yardstick and the refreshes back to back, so a ratio is
taken within one pair even when the machine's speed drifts; reported are the median, min
and max of every figure, the pair-by-pair ratios, and the load average before and after.
A refresh's own stage timers (its `--json` `timings` and `cpu_timings`) are reported as
medians, with the CPU of everything but its parse stage as a ratio to the bare scan's: the
work the scan does not do at all (landing the raw pages, the views, the history, the marts
and their checks, publishing, starting the process), which bounds the ratio from below.
A load average above half the processors prints a warning: the figures are then noisy.
`azure` also times gpuhunt's Azure parse of the same pages (offline, its own reader and
per-item loop; benchmarks.bench_azure.GPUHUNT_CHILD) when the `bench` dependency group
is installed (`uv sync --group bench`), with the refresh's ratio to it.
`aws-list` times a refresh of AWS Price List (GetProducts) items, on demand and twelve
reservation options each (benchmarks.bench_aws.generate_price_list), against DuckDB reading
each item once (LIST_DUCKDB_CHILD).
`demo` times the bundled demo refresh (new and again), `rates` and `--version`, paired with
the floor of any command: a Python process that loads DuckDB and Polars and reads the
same mart (no project code).

Wall seconds are a monotonic clock around the child; CPU seconds and peak memory are the
operating system's accounting of the finished child (os.wait4: ru_utime + ru_stime,
ru_maxrss). The command runs directly (no Prefect API in its environment). Generated inputs
go under --out (default: a folder under the system's temporary directory) and are reused;
delete it when done.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Collection
from pathlib import Path

from benchmarks import readme_rows

ROOT = Path(__file__).resolve().parent.parent
CLI = str(Path(sys.executable).parent / "gpu-pricing")


def run(argv: list[str], env: dict[str, str] | None = None, cwd: Path = ROOT) -> dict[str, float]:
    """One whole process: wall, cpu seconds and peak resident memory (MiB)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        began = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - began
        proc.returncode = os.waitstatus_to_exitcode(status)
        if proc.returncode:
            err.seek(0)
            text = err.read().decode(errors="replace")
            sys.exit(f"{' '.join(argv[:3])} ... exited {proc.returncode}:\n{text[-3000:]}")
        out.seek(0)
        printed = out.read()
    got = {"wall_s": wall, "cpu_s": usage.ru_utime + usage.ru_stime,
           "peak_mib": usage.ru_maxrss / 1024}  # fmt: skip
    with contextlib.suppress(ValueError):  # a refresh's --json stage timers (wall, CPU)
        doc = json.loads(printed)
        if isinstance(doc, dict):
            got.update({k: doc[k] for k in ("timings", "cpu_timings") if k in doc})
    return got


# the stage of a refresh that does the work DuckDB's bare scan does (read, decode, type,
# de-duplicate, store the rows); every other stage is work the scan does not do at all
PARSE_STAGE = "parse_stage"


def outside_parse(run: dict) -> float:
    """A refresh's CPU seconds outside its parse stage: landing, views, history, marts,
    checks, publishing, and starting and ending the process (its CPU less its stages')."""
    return run["cpu_s"] - run["cpu_timings"].get(PARSE_STAGE, 0.0)


def direct_env() -> dict[str, str]:
    """The environment without a Prefect API: the command line runs the refresh directly."""
    return {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_API")}


def yardstick_env(out: Path) -> dict[str, str] | None:
    """A yardstick's or peer's environment, on the same footing as the command line's: where
    Python writes no bytecode, `gpu-pricing` keeps its modules' bytecode in its virtual
    environment (gpu_pricing.cli._bytecode), so a yardstick or peer gets a bytecode folder
    of its own under `out` (PYTHONPYCACHEPREFIX): none of them compiles its modules (DuckDB's
    ~150, gpuhunt's) on every run but the first. Elsewhere the environment as it is."""
    if not sys.dont_write_bytecode or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PYTHONPYCACHEPREFIX": str(out / "yardstick-pycache")}


def fresh(warehouse: Path) -> None:
    for p in warehouse.parent.glob(warehouse.name + "*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"{one:.2f} (1 min), {five:.2f} (5 min)"


def loaded() -> bool:
    return os.getloadavg()[0] > (os.cpu_count() or 1) / 2


def report(title: str, runs: dict[str, list[dict[str, float]]], ratios: dict[str, list[float]]):
    print(f"\n{title}")
    print(f"{'':<34} {'median':>9} {'min':>9} {'max':>9}")
    for name, rows in runs.items():
        for key, unit in (("wall_s", "s wall"), ("cpu_s", "s cpu"), ("peak_mib", "MiB peak")):
            values = [r[key] for r in rows]
            print(
                f"{name + ', ' + unit:<34} {statistics.median(values):>9.2f} "
                f"{min(values):>9.2f} {max(values):>9.2f}"
            )
    for name, rows in runs.items():
        if all("cpu_timings" in r for r in rows):
            for key, unit in (("timings", "s wall"), ("cpu_timings", "s cpu")):
                stages = ", ".join(
                    f"{k} {statistics.median(r[key].get(k, 0.0) for r in rows):.2f}"
                    for k in rows[-1][key]
                )
                print(f"  {name}, by stage ({unit}, medians): {stages}")
            rest = statistics.median(r["cpu_s"] - sum(r["cpu_timings"].values()) for r in rows)
            print(f"  {name}, starting and ending the process: {rest:.2f} s cpu (median)")
    for name, values in ratios.items():
        print(
            f"{name:<34} {statistics.median(values):>9.2f} {min(values):>9.2f} "
            f"{max(values):>9.2f}"
        )


def paired(
    runs: int,
    steps: dict[str, Callable[[], dict[str, float]]],
    before_each: Callable[[], None] = lambda: None,
    group: Callable[[str], str] = lambda name: name,
) -> dict[str, list[dict[str, float]]]:
    """Every step once per repetition. Steps of one `group` (a tree's new refresh, then its
    refresh again) run together in their order; the groups take turns at going first, one
    place further each repetition: whatever runs first after `before_each` (or right after
    a large peer) pays for it, measured at up to ~0.9 s of a 12 s refresh, and no tree may
    always be the one that pays."""
    out: dict[str, list[dict[str, float]]] = {name: [] for name in steps}
    groups: dict[str, list[str]] = {}
    for name in steps:
        groups.setdefault(group(name), []).append(name)
    order = list(groups.values())
    for i in range(runs):
        before_each()
        turn = i % len(order)
        for names in order[turn:] + order[:turn]:
            for name in names:
                out[name].append(steps[name]())
        print(f"  repetition {i + 1}/{runs} done; load average {load()}", flush=True)
    return out


def by_tree(alone: Collection[str] = ()) -> Callable[[str], str]:
    """`paired`'s groups for steps named per tree (`label: ...`; this checkout's steps
    unlabelled): a tree's steps together, each step named in `alone` (a yardstick, a peer)
    on its own."""

    def group(name: str) -> str:
        if name in alone:
            return name
        label, _, rest = name.partition(": ")
        return label if rest else ""

    return group


def tree_command(tree: Path | None) -> tuple[list[str], dict[str, str]]:
    """The command line of this checkout, or of another one (`--tree`: an earlier commit's
    files, e.g. from `git archive`) run with this environment's packages."""
    env = direct_env()
    if tree is None:
        return [CLI], env
    env["PYTHONPATH"] = str(tree)
    return [sys.executable, "-m", "gpu_pricing.cli"], env


def refresh_steps(snap: Path, provider: str, warehouse: Path, yardstick: list[str], trees,
                  peers: dict[str, list[str]]):  # fmt: skip
    # bound now: each step runs later, after the loop below has set its own names
    alone = yardstick_env(warehouse.parent)
    steps = {"DuckDB read_json": lambda e=alone: run(yardstick, e)}
    for name, argv in peers.items():
        steps[name] = lambda a=argv, e=alone: run(a, e)
    for label, tree in [("", None), *trees]:
        cli, env = tree_command(tree)
        target = warehouse.with_name(f"{label or 'this'}-{warehouse.name}")
        argv = [*cli, "refresh", "--snapshot", str(snap), "--providers", provider,
                "--warehouse", str(target), "--json"]  # fmt: skip
        prefix = f"{label}: " if label else ""
        # from the tree's own folder: `python -m` puts the working directory first on the path
        cwd = tree or ROOT
        steps[f"{prefix}refresh, new warehouse"] = lambda a=argv, e=env, c=cwd: run(a, e, c)
        steps[f"{prefix}refresh again, unchanged"] = lambda a=argv, e=env, c=cwd: run(a, e, c)
    return steps


def compare(
    n: int, noun: str, snap: Path, provider: str, yardstick: list[str], args,
    peers: dict[str, list[str]] | None = None,
) -> None:  # fmt: skip
    """A refresh of `n` `noun` (as "1,000,000 Azure items"; README's speed table calls the
    work "1M Azure items": its rows are printed, and written with `--readme`,
    benchmarks.readme_rows). `peers`: other whole-process parses of the same items
    (gpuhunt's), by the name the rows give them, timed in the same pairs; each new refresh
    is also given as a ratio to them."""
    title = f"{n:,} {noun}"
    peers = peers or {}
    warehouse = Path(args.out) / f"bench_cli_{provider}.duckdb"
    trees = [tuple(t.split("=", 1)) for t in args.tree]
    trees = [(label, Path(tree).resolve()) for label, tree in trees]
    targets = [warehouse.with_name(f"{label or 'this'}-{warehouse.name}")
               for label in ["", *(label for label, _ in trees)]]  # fmt: skip
    print(f"{title}; load average before: {load()}")
    if loaded():
        print("WARNING: the machine is loaded (load average above half the processors): "
              "the figures are noisy; compare the ratios, not the seconds")  # fmt: skip

    def clean() -> None:
        for target in targets:
            fresh(target)

    steps = refresh_steps(snap, provider, warehouse, yardstick, trees, peers)
    got = paired(args.runs, steps, clean, by_tree({"DuckDB read_json", *peers}))
    duck = got["DuckDB read_json"]
    ratios = {}
    for label in ["", *(label for label, _ in trees)]:
        prefix = f"{label}: " if label else ""
        new, again = got[f"{prefix}refresh, new warehouse"], got[f"{prefix}refresh again, unchanged"]
        ratios[f"{prefix}new / DuckDB (wall)"] = [
            n["wall_s"] / d["wall_s"] for n, d in zip(new, duck, strict=True)
        ]
        ratios[f"{prefix}new / DuckDB (cpu)"] = [
            n["cpu_s"] / d["cpu_s"] for n, d in zip(new, duck, strict=True)
        ]
        if all("cpu_timings" in n for n in new):  # an earlier tree's may not time CPU
            # what the stages the scan does not do cost by themselves: the ratio a new
            # refresh would have with a parse stage of no cost at all
            ratios[f"{prefix}new outside {PARSE_STAGE} / DuckDB (cpu)"] = [
                outside_parse(n) / d["cpu_s"] for n, d in zip(new, duck, strict=True)
            ]
        for peer in peers:
            for key, unit in (("wall_s", "wall"), ("cpu_s", "cpu")):
                ratios[f"{prefix}new / {peer} ({unit})"] = [
                    n[key] / g[key] for n, g in zip(new, got[peer], strict=True)
                ]
        ratios[f"{prefix}unchanged / new (wall)"] = [
            a["wall_s"] / n["wall_s"] for a, n in zip(again, new, strict=True)
        ]
    report(title, got, ratios)
    peer = next(((name, got[name]) for name in peers), None)
    rows = readme_rows.refresh_rows(
        f"{readme_rows.count(n)} {noun}",
        got["refresh, new warehouse"],
        got["refresh again, unchanged"],
        duck,
        peer,
    )
    readme_rows.show(rows, readme_rows.README if args.readme else None)
    for target in targets:
        print(f"published file {target.name}: {target.stat().st_size / 1e6:.1f} MB")
    print(f"load average after: {load()}")
    if loaded():
        print("WARNING: the machine was loaded during the run")
    clean()


def azure(args) -> None:
    from benchmarks import bench_azure

    bench_azure.OUT = Path(args.out)
    snap = bench_azure.generate(args.items, 1000)
    yardstick = [sys.executable, "-c", bench_azure.DUCKDB_CHILD, bench_azure.duckdb_sql(snap)]
    gpuhunt = bench_azure.gpuhunt_argv(snap)
    if gpuhunt is None:
        print("gpuhunt is not installed (`uv sync --group bench`): timed without it")
    peers = {"gpuhunt's Azure parse": gpuhunt} if gpuhunt else {}
    compare(args.items, "Azure items", snap, "azure", yardstick, args, peers)


def aws(args) -> None:
    from benchmarks import bench_aws

    _refresh_aws(args, args.points, "AWS spot points", bench_aws.generate_spot,
                 "spot_price_history", bench_aws.SPOT_DUCKDB_CHILD)  # fmt: skip


def aws_list(args) -> None:
    from benchmarks import bench_aws

    _refresh_aws(args, args.items, "AWS Price List items", bench_aws.generate_price_list,
                 "price_list", bench_aws.LIST_DUCKDB_CHILD)  # fmt: skip


def _refresh_aws(
    args, n: int, noun: str, generate: Callable[[int], Path], endpoint: str, child: str
) -> None:
    """`n` items of one AWS endpoint (`generate`d as a snapshot under --out) refreshed,
    against `child` (a DuckDB read of the same files) as the yardstick."""
    from benchmarks import bench_aws

    bench_aws.OUT = Path(args.out)
    snap = generate(n)
    files = str(snap / "aws" / endpoint / "*.json")
    compare(n, noun, snap, "aws", [sys.executable, "-c", child, files], args)


# the floor of every command: Python, DuckDB and Polars loaded, one query of the demo
# warehouse (what `rates` reads), nothing of the project
DEMO_FLOOR = (
    "import sys, duckdb, polars\n"
    "con = duckdb.connect(sys.argv[1], read_only=True)\n"
    "con.sql('select * from mart_gpu_offers_current limit 5').pl()\n"
)


def demo(args) -> None:
    trees = [tuple(t.split("=", 1)) for t in args.tree]
    trees = [(label, Path(tree).resolve()) for label, tree in trees]
    print(f"demo; load average before: {load()}")
    if loaded():
        print("WARNING: the machine is loaded (load average above half the processors): "
              "the figures are noisy; compare the ratios, not the seconds")  # fmt: skip
    steps: dict[str, Callable[[], dict[str, float]]] = {}
    targets = []
    for label, tree in [("", None), *trees]:
        cli, env = tree_command(tree)
        cwd = tree or ROOT
        target = Path(args.out) / (
            f"bench_cli_demo-{label}.duckdb" if label else "bench_cli_demo.duckdb"
        )
        targets.append(target)
        prefix = f"{label}: " if label else ""
        refresh = [*cli, "refresh", "--snapshot", "demo", "--warehouse", str(target), "--json"]
        rates = [*cli, "rates", "--gpu", "H100", "--limit", "5", "--warehouse", str(target)]
        steps[f"{prefix}--version"] = lambda a=[*cli, "--version"], e=env, c=cwd: run(a, e, c)
        steps[f"{prefix}refresh demo, new"] = lambda a=refresh, e=env, c=cwd: run(a, e, c)
        steps[f"{prefix}refresh demo, again"] = lambda a=refresh, e=env, c=cwd: run(a, e, c)
        steps[f"{prefix}rates --gpu H100"] = lambda a=rates, e=env, c=cwd: run(a, e, c)
    floor = [sys.executable, "-c", DEMO_FLOOR, str(targets[0])]
    floor_env = yardstick_env(Path(args.out))
    steps["DuckDB + Polars, one query (floor)"] = lambda: run(floor, floor_env)

    def clean() -> None:
        for target in targets:
            fresh(target)

    # the floor reads this checkout's demo warehouse: it runs with this checkout's steps
    got = paired(args.runs, steps, clean, by_tree())
    ratios = {}
    for label in ["", *(label for label, _ in trees)]:
        prefix = f"{label}: " if label else ""
        ratios[f"{prefix}rates / floor (wall)"] = [
            r["wall_s"] / f["wall_s"]
            for r, f in zip(
                got[f"{prefix}rates --gpu H100"],
                got["DuckDB + Polars, one query (floor)"],
                strict=True,
            )
        ]
    report("demo", got, ratios)
    print(f"load average after: {load()}")
    if loaded():
        print("WARNING: the machine was loaded during the run")
    clean()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = {"azure": azure, "aws": aws, "aws-list": aws_list, "demo": demo}
    ap.add_argument("what", choices=list(modes))
    ap.add_argument("--items", type=int, help="azure: 1,000,000; aws-list: 640 (its most)")
    ap.add_argument("--points", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--out", default=str(Path(tempfile.gettempdir()) / "gpu-pricing-bench"))
    ap.add_argument(
        "--tree",
        action="append",
        default=[],
        metavar="LABEL=DIR",
        help="also time another checkout's command line (e.g. an earlier commit's files from "
        "`git archive REV | tar -x -C DIR`), paired in the same repetitions",
    )
    ap.add_argument("--readme", action="store_true",
                    help="write the rows of README's speed table this run gives into README.md "
                    "(azure, aws, aws-list)")  # fmt: skip
    args = ap.parse_args()
    args.items = args.items or (640 if args.what == "aws-list" else 1_000_000)
    Path(args.out).mkdir(parents=True, exist_ok=True)
    modes[args.what](args)


if __name__ == "__main__":
    main()
