"""The order the xdist workers take the test files in (tests/_schedule.py): longest first,
by the times of the last run, else the measured seconds per file, else per test."""

from __future__ import annotations

import json

from tests import _schedule


def queue(**files: int) -> dict[str, dict[str, bool]]:
    return {f"{name}.py": {f"{name}.py::t{i}": False for i in range(n)} for name, n in files.items()}


def test_the_longest_file_goes_first_whatever_its_number_of_tests():
    work = queue(many=50, few=2, none_known=3)
    per_test = {"few.py::t0": 40.0, "few.py::t1": 20.0, **{f"many.py::t{i}": 0.1 for i in range(50)}}
    assert list(_schedule.longest_first(work, per_test, {})) == ["few.py", "many.py", "none_known.py"]


def test_the_seed_counts_for_a_file_the_cache_knows_only_in_part():
    work = queue(mixed=4, small=3)
    per_test = {"mixed.py::t0": 0.1, "small.py::t0": 1.0, "small.py::t1": 1.0, "small.py::t2": 1.0}
    assert list(_schedule.longest_first(work, per_test, {"mixed.py": 30})) == ["mixed.py", "small.py"]
    assert list(_schedule.longest_first(work, per_test, {})) == ["small.py", "mixed.py"]


def test_equally_long_files_keep_their_order():
    work = queue(b=2, a=2, c=2)
    assert list(_schedule.longest_first(work, {}, {})) == ["b.py", "a.py", "c.py"]


def test_the_seed_names_test_files_with_seconds():
    seed = json.loads(_schedule.SEED.read_text())
    assert seed and all(k.startswith("tests/") and k.endswith(".py") for k in seed)
    assert all(isinstance(v, int | float) and v > 0 for v in seed.values())
