"""README's speed table is written from the benchmarks' own figures
(benchmarks.readme_rows): the rows a run gives, put in place of the rows of the same work,
and README's table holds only rows of that shape."""

from __future__ import annotations

import re

from benchmarks import readme_rows
from benchmarks.readme_rows import HEADER, README


def runs(wall: list[float], cpu: list[float], mib: list[float]) -> list[dict[str, float]]:
    return [
        {"wall_s": w, "cpu_s": c, "peak_mib": m} for w, c, m in zip(wall, cpu, mib, strict=True)
    ]


NEW = runs([18.0, 20.0, 19.0], [28.0, 30.0, 29.0], [760.0, 780.0, 770.0])
AGAIN = runs([1.2, 1.4, 1.3], [1.3, 1.5, 1.4], [119.0, 121.0, 120.0])
BARE = runs([3.0, 4.0, 3.5], [6.0, 6.0, 5.8], [160.0, 160.0, 160.0])
PEER = runs([30.0, 40.0, 35.0], [30.0, 40.0, 35.0], [2200.0, 2200.0, 2200.0])


def test_a_refresh_benchmark_gives_its_two_rows_from_the_pairs():
    new, again = readme_rows.refresh_rows("1M Azure items", NEW, AGAIN, BARE,
                                          ("gpuhunt's parse", PEER))  # fmt: skip
    # medians of each figure; the ratio is the median (min-max) of the pairs' own ratios:
    # 28/6, 30/6, 29/5.8
    assert new == (
        "| 1M Azure items, new warehouse | 19.00 s wall, 29.00 s cpu, 770 MiB "
        "| 3.50 s wall, 6.00 s cpu; gpuhunt's parse 35.0 s wall, 35.0 s cpu "
        "| 5.0x bare (cpu; 4.7-5.0); 0.54x the wall of gpuhunt's parse, 0.83x its cpu |"
    )
    assert (
        again == "| 1M Azure items, again unchanged | 1.30 s wall, 120 MiB | | 7% of new (wall) |"
    )
    assert readme_rows.refresh_rows("640 AWS Price List items", NEW, AGAIN, BARE)[0].endswith(
        "| 3.50 s wall, 6.00 s cpu | 5.0x bare (cpu; 4.7-5.0) |"
    )
    assert [readme_rows.count(n) for n in (1_000_000, 300_000, 640, 1_500_000)] == [
        "1M", "300k", "640", "1.5M"
    ]  # fmt: skip


def test_the_year_benchmark_gives_its_row():
    assert readme_rows.year_row(365, 30, NEW, AGAIN) == (
        "| a night's spot refresh after 365 / after 30 days | 29.00 / 1.40 s cpu, 770 / 120 "
        "MiB | | 20.71x cpu, 14.62x wall, 6.42x memory |"
    )


def test_rows_are_written_in_place_of_the_same_work_and_new_work_after_its_items(tmp_path):
    readme = tmp_path / "README.md"
    table = [
        "# x", "", HEADER, "|---|---|---|---|",
        "| 1M Azure items, new warehouse | old | old | old |",
        "| 1M AWS spot points, new warehouse | kept | kept | kept |",
        "", "After the table.",
    ]  # fmt: skip
    readme.write_text("\n".join(table))
    rows = readme_rows.refresh_rows("1M Azure items", NEW, AGAIN, BARE)
    readme_rows.write(rows, readme)
    lines = readme.read_text().split("\n")
    # the new warehouse's row in place of the old one, the unchanged refresh's after it
    assert lines[4:8] == [rows[0], rows[1],
                          "| 1M AWS spot points, new warehouse | kept | kept | kept |", ""]  # fmt: skip
    assert lines[-1] == "After the table."
    readme_rows.write(rows, readme)  # the same run again: the same file
    assert readme.read_text().split("\n") == lines
    year = readme_rows.year_row(365, 30, NEW, AGAIN)  # work of its own: at the table's end
    readme_rows.write([year], readme)
    assert readme.read_text().split("\n")[4:8] == [*lines[4:7], year]


def test_readme_s_speed_table_holds_only_rows_the_benchmarks_write():
    lines = README.read_text().split("\n")
    start = lines.index(HEADER)
    table = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        table.append(line)
    works = re.compile(
        r"\| ([\d.]+[Mk]?|[\d,]+) (Azure items|AWS spot points|AWS Price List items), "
        r"(new warehouse|again unchanged)"
        r"|\| a night's spot refresh after \d+ / after \d+ days"
    )
    assert len(table) >= 4
    for row in table:
        assert works.fullmatch(row.split(" | ")[0]), row
        assert row.count("|") == 5 and row.endswith(" |"), row
