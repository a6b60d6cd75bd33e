"""README's speed table, written from a benchmark's own figures: `bench_cli azure|aws|
aws-list` and `bench_year` print the rows their run gives (medians of whole processes;
ratios as the median, min and max of the pairs' own ratios), and with `--readme` put them
into README.md in place of the rows of the same work (a row's first cell; a new work is
added at the table's end). The sentence above the table (machine, load, pairs) is the
writer's to keep true.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path

README = Path(__file__).resolve().parents[1] / "README.md"
HEADER = "| work | refresh | DuckDB bare | ratio |"

Runs = Sequence[dict[str, float]]


def count(n: int) -> str:
    """1000000 -> 1M, 300000 -> 300k, 640 -> 640."""
    for size, unit in ((1_000_000, "M"), (1_000, "k")):
        if n >= size and n % (size // 10) == 0:
            return f"{n / size:g}{unit}"
    return f"{n:,}"


def _median(runs: Runs, key: str) -> float:
    return statistics.median(r[key] for r in runs)


def _ratios(a: Runs, b: Runs, key: str) -> tuple[float, float, float]:
    """The pairs' ratios of `key`: median, min, max."""
    pairs = [x[key] / y[key] for x, y in zip(a, b, strict=True)]
    return statistics.median(pairs), min(pairs), max(pairs)


def refresh_rows(
    work: str, new: Runs, again: Runs, bare: Runs, peer: tuple[str, Runs] | None = None
) -> list[str]:
    """The rows of a refresh benchmark: the new warehouse against DuckDB's bare scan (and a
    peer's parse of the same items, `peer`: its name and runs), and the refresh again."""
    ratio, low, high = _ratios(new, bare, "cpu_s")
    cells = [
        f"{_median(new, 'wall_s'):.2f} s wall, {_median(new, 'cpu_s'):.2f} s cpu, "
        f"{_median(new, 'peak_mib'):.0f} MiB",
        f"{_median(bare, 'wall_s'):.2f} s wall, {_median(bare, 'cpu_s'):.2f} s cpu",
        f"{ratio:.1f}x bare (cpu; {low:.1f}-{high:.1f})",
    ]
    if peer is not None:
        name, runs = peer
        cells[1] += (
            f"; {name} {_median(runs, 'wall_s'):.1f} s wall, {_median(runs, 'cpu_s'):.1f} s cpu"
        )
        wall, cpu = _ratios(new, runs, "wall_s")[0], _ratios(new, runs, "cpu_s")[0]
        cells[2] += f"; {wall:.2f}x the wall of {name}, {cpu:.2f}x its cpu"
    unchanged = _ratios(again, new, "wall_s")[0]
    return [
        f"| {work}, new warehouse | {' | '.join(cells)} |",
        f"| {work}, again unchanged | {_median(again, 'wall_s'):.2f} s wall, "
        f"{_median(again, 'peak_mib'):.0f} MiB | | {unchanged:.0%} of new (wall) |",
    ]


def year_row(longer: int, shorter: int, after_longer: Runs, after_shorter: Runs) -> str:
    """The row of a night's refresh after `longer` against after `shorter` days."""
    cpu, wall, memory = (
        _ratios(after_longer, after_shorter, key)[0] for key in ("cpu_s", "wall_s", "peak_mib")
    )
    return (
        f"| a night's spot refresh after {longer} / after {shorter} days | "
        f"{_median(after_longer, 'cpu_s'):.2f} / {_median(after_shorter, 'cpu_s'):.2f} s cpu, "
        f"{_median(after_longer, 'peak_mib'):.0f} / {_median(after_shorter, 'peak_mib'):.0f} "
        f"MiB | | {cpu:.2f}x cpu, {wall:.2f}x wall, {memory:.2f}x memory |"
    )


def show(rows: list[str], readme: Path | None) -> None:
    """Print the rows; with `readme`, also write them into its speed table."""
    print("README speed table rows:")
    print("\n".join(rows))
    if readme is not None:
        write(rows, readme)
        print(f"written into {readme}")


def write(rows: list[str], readme: Path = README) -> None:
    """Put `rows` into the speed table of `readme`: each in place of the row of the same
    work; a new one after the last row of the same items (the work before its comma), or
    after the table's last row."""
    lines = readme.read_text().split("\n")
    start = lines.index(HEADER)
    end = next(i for i in range(start + 2, len(lines) + 1)
               if i == len(lines) or not lines[i].startswith("|"))  # fmt: skip
    for row in rows:
        work = row.split(" | ")[0]
        items = work.split(", ")[0]
        table = range(start + 2, end)
        at = next((i for i in table if lines[i].split(" | ")[0] == work), None)
        if at is not None:
            lines[at] = row
            continue
        alike = [i for i in table if lines[i].split(" | ")[0].split(", ")[0] == items]
        lines.insert(alike[-1] + 1 if alike else end, row)
        end += 1
    readme.write_text("\n".join(lines))
