"""Each folder imports only what its role allows, so arrows never point backwards (no
layer reads a higher one); pyproject's import-linter contracts hold the same layering (the connectors' underscore
modules: tests/connectors/test_kit_boundary.py):

    gpu_pricing (command line > report > API > planner) > flows > services > warehouse
        > connectors > models > common
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
ALLOWED = {
    # folder: third-party/first-party top-level packages it may import
    "common": {"polars", "common"},  # the bottom: none of the application
    # duckdb in memory only: the serving roofline is one SQL macro shared with the mart
    # (models/serving.py runs it on the caller's frame); models never open the warehouse
    "models": {"polars", "models", "duckdb"},
    "samples": {"samples"},  # builders of response shapes: the standard library only
    "connectors": {"connectors", "common", "polars", "pyarrow", "httpx", "orjson", "boto3",
                   "botocore", "google", "azure", "nebius", "models",
                   "requests"},  # the transport under google-api-core REST (its errors)
    "warehouse": {"warehouse", "connectors", "common", "duckdb", "polars", "pyarrow",
                  "zstandard", "yaml", "pyiceberg"},
    "services": {"services", "warehouse", "connectors", "models", "common", "duckdb", "polars",
                 "pydantic", "pydantic_core", "croniter", "apprise",
                 "prefect"},  # notify reads a Prefect Secret block, nothing else of Prefect
}
# connectors may use this module of the formulas only: the conventions (hours per year, bytes
# per GiB) every layer reads from seed_conventions
CONNECTOR_MODELS_MODULES = {"models.conventions"}
BELOW_FLOWS = ("common", "models", "samples", "connectors", "warehouse", "services")
# the user-facing modules: the Python API's names are importable from the package itself
PUBLIC_EXTRA = {"NoFeasiblePlan", "WarehouseError"}  # from the planner and common.errors


def imports(path: Path) -> set[str]:
    """Every module `path` imports, lazy ones included; `from pkg import name` counts as
    both `pkg` and `pkg.name` (name may be a module)."""
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names |= {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def python_files(*folders: str) -> list[Path]:
    return sorted(p for f in folders for p in (ROOT / f).rglob("*.py"))


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_folder_imports_only_what_its_role_allows(folder):
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files(folder)
        for name in imports(path)
        if name.split(".")[0] not in STDLIB | ALLOWED[folder]
        or (folder == "connectors" and name.startswith("models.")
            and not any(name == m or name.startswith(m + ".") for m in CONNECTOR_MODELS_MODULES))
    ]
    assert offenders == []


def test_nothing_below_the_flows_imports_the_flows_or_the_app():
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files(*BELOW_FLOWS)
        for name in imports(path)
        if name.split(".")[0] in {"flows", "gpu_pricing"}
    ]
    assert offenders == []


def test_the_flows_import_nothing_of_the_app():
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files("flows")
        for name in imports(path)
        if name.split(".")[0] == "gpu_pricing"
    ]
    assert offenders == []


def test_the_package_exports_the_api_once():
    """`import gpu_pricing; gpu_pricing.rates(...)`: the package exports exactly the API's
    names (`gpu_pricing.api.__all__`, their one list) plus the planner's and the
    warehouse's error. They load on first use: the package states no name of the API
    (its look-up reads `api.__all__`), and every name the API lists has a module."""
    import gpu_pricing
    from common.errors import WarehouseError
    from gpu_pricing import api, plan

    source = (ROOT / "gpu_pricing" / "__init__.py").read_text()
    assert not any(f'"{name}"' in source for name in api.__all__)
    assert set(gpu_pricing.__all__) == {*api.__all__, "NoFeasiblePlan", "WarehouseError"}
    for name in api.__all__:
        assert getattr(gpu_pricing, name) is getattr(api, name)
    assert gpu_pricing.NoFeasiblePlan is plan.NoFeasiblePlan
    assert gpu_pricing.WarehouseError is WarehouseError
    assert set(dir(gpu_pricing)) >= PUBLIC_EXTRA | set(gpu_pricing.__all__)
    with pytest.raises(AttributeError):
        gpu_pricing.no_such_name  # noqa: B018


def test_every_name_the_api_lazily_exports_is_its_modules():
    """gpu_pricing.api names each export's module (imported on first use): every name is
    found there, and is the same object through the package."""
    import importlib

    from gpu_pricing import api

    for module, names in api._NAMES_BY_MODULE.items():
        loaded = importlib.import_module(f"gpu_pricing.api.{module}")
        for name in names:
            assert hasattr(loaded, name), (module, name)
            assert getattr(api, name) is getattr(loaded, name)
    assert set(api.__all__) <= set(api._MODULE_OF)
    with pytest.raises(AttributeError):
        api.no_such_name  # noqa: B018


@pytest.mark.slow  # a fresh interpreter
def test_a_refresh_loads_nothing_of_the_app():
    """The flows (and every service they use) load no module of `gpu_pricing`: the
    command line, the API, the planner and the report are above them."""
    import subprocess

    code = ("import sys, flows.refresh, flows.direct; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'gpu_pricing'))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert ast.literal_eval(done.stdout) == []


@pytest.mark.slow  # a fresh interpreter per module
@pytest.mark.parametrize(
    "module",
    ["gpu_pricing", "gpu_pricing.cli", "gpu_pricing.cli.core", "gpu_pricing.cli.costs",
     "gpu_pricing.cli.estimate", "gpu_pricing.cli.breakeven", "gpu_pricing.cli.plan",
     "gpu_pricing.cli.ops", "gpu_pricing.cli.publish", "gpu_pricing.api.estimates",
     "gpu_pricing.api.breakevens", "gpu_pricing.plan.serve", "gpu_pricing.plan.train",
     "gpu_pricing.report", "flows.refresh", "services.config", "services.config_checks",
     "common.names", "services.notify", "services.alerts", "warehouse.publish",
     "warehouse.publish_io", "warehouse.snapshot_export",
     "warehouse.queries", "warehouse.staging", "common.errors", "common.redact",
     "common.schemas", "common.gpu", "common.gpu_seeds", "common.providers"],
)
def test_each_module_imports_first_in_a_fresh_process(module):
    """No import cycle hides behind an import order: each module imports on its own."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow  # a fresh interpreter
def test_the_command_line_runs_as_a_module():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "gpu_pricing.cli", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "refresh" in done.stdout and "estimate" in done.stdout


def test_scripts_and_benchmarks_do_not_import_the_tests():
    """What they share with the tests (the response-shape builders) is the samples/ package;
    the test suite is no library."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in python_files("scripts", "benchmarks")
        for name in imports(path)
        if name.split(".")[0] == "tests"
    ]
    assert offenders == []



MAX_LINES = 600  # a module this long holds more than one role: cut it by role


def repo_python_files() -> list[Path]:
    """Every Python file of the repository, tests, scripts and benchmarks included; nothing
    under a hidden folder (.venv, .git, caches), which is never walked."""
    tops = [p for p in ROOT.iterdir() if not p.name.startswith(".")]
    return sorted(
        [p for p in tops if p.suffix == ".py"]
        + [
            p
            for top in tops
            if top.is_dir()
            for p in top.rglob("*.py")
            if not any(part.startswith(".") for part in p.relative_to(ROOT).parts)
        ]
    )


def test_no_python_file_reaches_600_lines():
    files = repo_python_files()
    found = {p.relative_to(ROOT).parts[0] for p in files}
    assert {"tests", "scripts", "benchmarks", "gpu_pricing", "connectors"} <= found
    assert Path(__file__).resolve() in files
    long = {
        str(p.relative_to(ROOT)): lines
        for p in files
        if (lines := len(p.read_text(encoding="utf-8").splitlines())) >= MAX_LINES
    }
    assert long == {}, f"cut by role, each under {MAX_LINES} lines: {long}"


def test_the_report_reads_the_warehouse_through_the_engine():
    """The report's sections call gpu_pricing.api (the functions the command line calls,
    and api.charts for what only the report draws): no report module imports the
    warehouse's queries or database helpers, so a report and a command answer alike."""
    offenders = [
        (path.name, name)
        for path in (ROOT / "gpu_pricing").glob("report*.py")
        for name in imports(path)
        if name.split(".")[0] == "warehouse"
    ]
    assert offenders == []


# (a statement, its one home): a test or script that needs it imports it from there
ONE_HOME = [
    ('s.bind(("127.0.0.1", 0))', "tests/_processes.py"),  # a free loopback port
    ("def stop(proc", "tests/_processes.py"),  # a polite stop of a process group
    ("CHROMIUM_NAMES = (", "scripts/report_screenshot.py"),  # the browser and its flags
    ('"--disable-background-networking"', "scripts/report_screenshot.py"),
]


@pytest.mark.parametrize(("statement", "home"), ONE_HOME)
def test_a_shared_test_helper_is_stated_once(statement, home):
    found = sorted(
        str(p.relative_to(ROOT))
        for p in repo_python_files()
        if p != Path(__file__).resolve() and statement in p.read_text(encoding="utf-8")
    )
    assert found == [home]


def test_models_use_duckdb_in_memory_only():
    """The formulas may evaluate the SQL macros they share with the marts, on an in-memory
    database; a path (or ':memory:' spelled out as a file name) would mean a model reads the
    warehouse, which is the API's job."""
    for path in sorted((ROOT / "models").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr == "connect"):
                assert not node.args and all(k.arg != "database" for k in node.keywords), (
                    f"{path.relative_to(ROOT)}:{node.lineno} connects to a database file")


def test_whether_a_relation_exists_is_asked_in_one_place():
    """"Is this table or view created yet?" is `db.relation_exists`; a second spelling of it
    over the catalog functions would drift (one forgot the views, another the database)."""
    asked = re.compile(r"duckdb_(tables|views)\(\)\s+WHERE\s+(\w+\s*=\s*\S+\s+AND\s+)*"
                       r"(table|view)_name\s*=", re.IGNORECASE)
    found = sorted(
        str(p.relative_to(ROOT))
        for p in repo_python_files()
        if "tests" not in p.relative_to(ROOT).parts and asked.search(p.read_text(encoding="utf-8"))
    )
    assert found == [], f"ask db.relation_exists instead: {found}"
