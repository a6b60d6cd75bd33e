"""Each folder imports only what its role allows, so arrows never point backwards (no
layer reads a later one); pyproject's import-linter contracts hold the same layering."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
STDLIB = set(sys.stdlib_module_names) | {"__future__"}
ALLOWED = {
    # folder: third-party/first-party top-level packages it may import
    "warehouse": {"duckdb", "polars", "pyarrow", "zstandard", "yaml", "warehouse"},
    "models": {"polars", "models"},
    "samples": {"samples"},  # builders of response shapes: the standard library only
    "connectors": {"connectors", "polars", "pyarrow", "httpx", "orjson", "boto3", "botocore",
                   "google", "azure", "warehouse", "nebius", "models",
                   "requests"},  # the transport under google-api-core REST (its errors)
}
# connectors may use these lower modules only: the schema and the error base class, and the
# conventions (hours per year, bytes per GiB) every layer reads from seed_conventions
CONNECTOR_LOWER_MODULES = {"warehouse.schemas", "warehouse.errors", "models.conventions"}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("folder", sorted(ALLOWED))
def test_folder_imports_only_what_its_role_allows(folder):
    offenders = []
    for path in sorted((ROOT / folder).rglob("*.py")):
        for name in imports(path):
            top = name.split(".")[0]
            if top in STDLIB:
                continue
            narrow = folder == "connectors" and top in {"warehouse", "models"}
            if top not in ALLOWED[folder] or (narrow and name not in CONNECTOR_LOWER_MODULES):
                offenders.append(f"{path.relative_to(ROOT)} imports {name}")
    assert offenders == []


def test_nothing_but_flows_imports_flows():
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for folder in ALLOWED
        for path in (ROOT / folder).rglob("*.py")
        for name in imports(path)
        if name.split(".")[0] == "flows"
    ]
    assert offenders == []


# what sits above the flows: the command line, the Python API, the planner and the report
ABOVE_FLOWS = ("gpu_pricing.cli", "gpu_pricing.api", "gpu_pricing.plan", "gpu_pricing.report")
# the app services the flows use (and the queries they read)
SERVICES = ("gpu_pricing.config", "gpu_pricing.config_checks", "gpu_pricing.names", "gpu_pricing.notify",
            "gpu_pricing.publish", "gpu_pricing.snapshot_export", "gpu_pricing.queries")


def _above_flows(name: str) -> bool:
    return name == "gpu_pricing" or any(
        name == m or name.startswith(m + ".") or name.startswith(m + "_") for m in ABOVE_FLOWS
    )


def test_flows_use_only_the_app_services():
    """The command line, the API, the planner and the report build on flows, never the
    reverse: under flows/, an import of gpu_pricing names one of the services, even a lazy
    one (`from gpu_pricing import x` counts as an import of gpu_pricing.x)."""
    offenders = []
    for path in (ROOT / "flows").rglob("*.py"):
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == "gpu_pricing":
                names = [f"gpu_pricing.{a.name}" for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            else:
                continue
            offenders += [
                f"{path.relative_to(ROOT)} imports {n}"
                for n in names
                if n.split(".")[0] == "gpu_pricing" and (_above_flows(n) or n not in SERVICES)
            ]
    assert offenders == []


@pytest.mark.slow  # a fresh interpreter per service
@pytest.mark.parametrize("service", SERVICES)
def test_a_service_loads_neither_the_api_nor_the_planner(service):
    """`gpu_pricing/__init__.py` re-exports the API lazily: a flow importing a service
    does not pay for (or depend on) the API, the planner or the command line."""
    import subprocess

    code = (f"import sys, {service}; "
            "print(sorted(m for m in sys.modules if m.startswith('gpu_pricing')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    loaded = ast.literal_eval(done.stdout)
    assert service in loaded
    assert [m for m in loaded if _above_flows(m) and m != "gpu_pricing"] == []


def test_the_package_still_re_exports_the_api():
    import gpu_pricing
    from gpu_pricing import api, plan

    assert gpu_pricing.cheapest is api.cheapest
    assert gpu_pricing.NoFeasiblePlan is plan.NoFeasiblePlan
    assert set(gpu_pricing.__all__) <= set(dir(gpu_pricing))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        gpu_pricing.nope  # noqa: B018


@pytest.mark.slow  # a fresh interpreter per module
@pytest.mark.parametrize(
    "module",
    ["gpu_pricing.cli", "gpu_pricing.cli.core", "gpu_pricing.cli.costs", "gpu_pricing.cli.plan",
     "gpu_pricing.cli.ops", "gpu_pricing.cli.publish", "gpu_pricing.report", "flows.refresh",
     *SERVICES],
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
        for folder in ("scripts", "benchmarks")
        for path in (ROOT / folder).rglob("*.py")
        for name in imports(path)
        if name.split(".")[0] == "tests"
    ]
    assert offenders == []
