"""The fast loop (`pytest -m "not slow"`, CONTRIBUTING.md) still tests every package: each
top-level package of the repository is imported by at least one test module with a test
that is not `slow` (directly or through a helper of tests/), and the SQL project has fast
tests of its own. Checked on a run of the whole suite or of the fast loop (a run of a few
files cannot tell)."""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
# measured by hand (docs/benchmarks.md), never imported by a test; test_architecture.py
# checks its imports
UNTESTED = {"benchmarks"}


def packages() -> set[str]:
    return {p.parent.name for p in ROOT.glob("*/__init__.py")} - {"tests"}


@cache
def imported(path: Path) -> frozenset[str]:
    """Top-level names `path` imports, lazy imports included, and those of the tests/
    helpers it imports, transitively."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        for module in modules:
            names.add(module.split(".")[0])
            helper = ROOT.joinpath(*module.split(".")).with_suffix(".py")
            if module.startswith("tests.") and helper.is_file() and helper != path:
                names |= imported(helper)
    return frozenset(names)


def test_every_package_has_a_test_in_the_fast_loop(request):
    config = request.config
    whole = config.args_source == pytest.Config.ArgsSource.TESTPATHS and not config.option.keyword
    if not whole or config.option.markexpr not in ("", "not slow"):
        pytest.skip("checked on a run of the whole suite or of the fast loop only")
    fast = [item for item in request.session.items if not item.get_closest_marker("slow")]
    files = {Path(item.fspath) for item in fast}
    covered = set().union(*(imported(f) for f in files))
    assert packages() - UNTESTED - covered == set()
    assert packages() >= UNTESTED  # no stale exception
    assert any(f.is_relative_to(ROOT / "tests" / "sql") for f in files)  # the SQL project
