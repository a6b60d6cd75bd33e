"""The connector kit is the connectors' one public face: no module outside `connectors/`
imports a private (underscore) module of it, and the kit itself has none to import."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

from warehouse import staging

ROOT = Path(__file__).resolve().parents[2]


def _python_files() -> list[Path]:
    out = subprocess.run(
        ["git", "ls-files", "*.py"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    return [ROOT / f for f in out if (ROOT / f).exists()]


def _imported(tree: ast.AST) -> list[str]:
    """Every module an import statement names, with `from a import b` as `a.b` too."""
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
            names += [f"{node.module}.{a.name}" for a in node.names]
    return names


def _private(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "connectors" and any(p.startswith("_") and p != "__init__" for p in parts)


def test_no_module_outside_connectors_imports_a_private_connector_module():
    offenders = [
        f"{path.relative_to(ROOT)}: {name}"
        for path in _python_files()
        if path.relative_to(ROOT).parts[0] != "connectors"
        for name in _imported(ast.parse(path.read_text(encoding="utf-8")))
        if _private(name)
    ]
    assert not offenders, offenders


def test_the_connectors_package_has_no_private_modules_left():
    private = sorted(
        str(p.relative_to(ROOT))
        for p in (ROOT / "connectors").rglob("_*.py")
        if p.name != "__init__.py"
    )
    assert not private, private


def test_a_change_in_the_kit_reparses_every_connector(tmp_path, monkeypatch):
    """The code digest that decides a re-parse covers the kit the connectors are built
    from (a fix in its normalise rules must reach the staged offers), and what every parse
    runs and reads besides: the GPU identity rule and its seeds, the currencies' rates, how
    a batch's offers are staged (a fixed alias must reach offers whose pages are unchanged)."""
    for f in ("connectors/kit/normalise.py", "connectors/foo/parse.py",
              *staging._PARSED_WITH):  # fmt: skip
        (tmp_path / f).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / f).write_text("# v1\n")
    monkeypatch.setattr(staging, "_ROOT", tmp_path)
    for changed in ("connectors/kit/normalise.py", "warehouse/batches.py", "common/gpu.py",
                    "sql/seeds/seed_gpu_aliases.csv", "sql/seeds/seed_fx_rates.csv"):  # fmt: skip
        before = staging.code_digest("foo")
        (tmp_path / changed).write_text("# v2\n")
        assert staging.code_digest("foo") != before, changed


def test_the_digest_names_files_that_exist():
    """Every file the digest names besides a connector's own is there (a renamed one would
    silently drop out of it)."""
    missing = [f for f in staging._PARSED_WITH if not (ROOT / f).is_file()]
    assert not missing, missing
