"""The command line keeps its bytecode in its virtual environment where Python writes none
(gpu_pricing.cli._bytecode): a module imported afterwards is compiled into that folder,
never beside its source, and every other setting is left as it is."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from gpu_pricing.cli import _bytecode


@pytest.fixture
def bare(monkeypatch, tmp_path: Path) -> Path:
    """This process as a command starts where Python writes no bytecode, in a virtual
    environment at tmp_path/venv whose packages are not compiled."""
    venv = tmp_path / "venv"
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    monkeypatch.setattr(sys, "pycache_prefix", None)
    monkeypatch.setattr(sys, "prefix", str(venv))
    monkeypatch.setattr(sys, "base_prefix", str(tmp_path / "python"))
    monkeypatch.delenv("PYTHONPYCACHEPREFIX", raising=False)
    monkeypatch.delenv(_bytecode.OFF, raising=False)
    monkeypatch.setattr(_bytecode, "cache_from_source", lambda path: str(tmp_path / "none.pyc"))
    return venv


def test_a_module_imported_after_is_compiled_into_the_environment_only(bare, tmp_path, monkeypatch):
    source = tmp_path / "src"
    source.mkdir()
    (source / "bytecode_probe_module.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(source))
    _bytecode.keep_in_environment()
    assert sys.pycache_prefix == str(bare / _bytecode.FOLDER)
    assert sys.dont_write_bytecode is False
    try:
        assert importlib.import_module("bytecode_probe_module").VALUE == 42
    finally:
        sys.modules.pop("bytecode_probe_module", None)
    written = list((bare / _bytecode.FOLDER).rglob("bytecode_probe_module.*.pyc"))
    assert len(written) == 1
    assert list(source.rglob("*.pyc")) == []


@pytest.mark.parametrize(
    "setting",
    ["writes bytecode", "own prefix", "prefix in the environment", "no venv", "compiled", "off"],
)
def test_every_other_setting_is_left_as_it_is(bare, tmp_path, monkeypatch, setting):
    if setting == "writes bytecode":
        monkeypatch.setattr(sys, "dont_write_bytecode", False)
    elif setting == "own prefix":
        monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "mine"))
    elif setting == "prefix in the environment":
        monkeypatch.setenv("PYTHONPYCACHEPREFIX", str(tmp_path / "mine"))
    elif setting == "no venv":
        monkeypatch.setattr(sys, "base_prefix", sys.prefix)
    elif setting == "compiled":  # the probe package's bytecode is where Python looks for it
        monkeypatch.setattr(_bytecode, "cache_from_source", lambda path: __file__)
    else:
        monkeypatch.setenv(_bytecode.OFF, "1")
    before = (sys.pycache_prefix, sys.dont_write_bytecode)
    assert _bytecode.folder() is None
    _bytecode.keep_in_environment()
    assert (sys.pycache_prefix, sys.dont_write_bytecode) == before


@pytest.mark.slow  # a fresh interpreter
def test_the_switch_comes_before_any_module_of_the_project():
    """`gpu_pricing` (the package the command line sits in, imported first) loads nothing:
    every module of the project a command imports comes after the switch, so none but the
    two packages on the way to it is compiled again on every command."""
    import subprocess

    root = Path(__file__).resolve().parents[3]
    ours = sorted(p.name for p in root.iterdir() if (p / "__init__.py").exists())
    code = (
        "import sys\n"
        "order = []\n"
        "class Seen:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        order.append(name)\n"
        "sys.meta_path.insert(0, Seen())\n"
        "import gpu_pricing.cli\n"
        "before = order[: order.index('gpu_pricing.cli._bytecode')]\n"
        f"print(' '.join(m for m in before if m.split('.')[0] in {ours!r}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["gpu_pricing", "gpu_pricing.cli"]
