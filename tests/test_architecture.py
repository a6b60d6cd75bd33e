"""The import column of HOUSE_STYLE §2: each folder imports only what its role allows, so
arrows never point backwards (no layer reads a later one)."""

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
    "connectors": {"connectors", "polars", "pyarrow", "httpx", "orjson", "boto3", "botocore",
                   "google", "azure", "warehouse", "nebius",
                   "requests"},  # the transport under google-api-core REST (its errors)
}
# connectors may use these warehouse modules only (the schema and the error base class)
CONNECTOR_WAREHOUSE_MODULES = {"warehouse.schemas", "warehouse.errors"}


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
            narrow = folder == "connectors" and top == "warehouse"
            if top not in ALLOWED[folder] or (narrow and name not in CONNECTOR_WAREHOUSE_MODULES):
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


def test_flows_never_import_the_app_layer():
    """gpu_pricing (the command line, the report, the planner) builds on flows, never the
    reverse: no import of gpu_pricing anywhere under flows/, even a lazy one."""
    offenders = [
        f"{path.relative_to(ROOT)} imports {name}"
        for path in (ROOT / "flows").rglob("*.py")
        for name in imports(path)
        if name.split(".")[0] == "gpu_pricing"
    ]
    assert offenders == []


@pytest.mark.parametrize(
    "module",
    ["gpu_pricing.cli", "gpu_pricing.cli.core", "gpu_pricing.cli.costs", "gpu_pricing.cli.plan",
     "gpu_pricing.cli.ops", "gpu_pricing.cli.publish", "gpu_pricing.report", "flows.refresh"],
)
def test_each_module_imports_first_in_a_fresh_process(module):
    """No import cycle hides behind an import order: each module imports on its own."""
    import subprocess

    done = subprocess.run([sys.executable, "-c", f"import {module}"], capture_output=True,
                          text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr


def test_the_command_line_runs_as_a_module():
    import subprocess

    done = subprocess.run([sys.executable, "-m", "gpu_pricing.cli", "--help"],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "refresh" in done.stdout and "estimate" in done.stdout
