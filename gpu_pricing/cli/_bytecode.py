"""The command line's bytecode, kept in its virtual environment where Python writes none.

Where Python is told to write no bytecode (`PYTHONDONTWRITEBYTECODE=1`, as in many
container images and CI) and the environment's packages were installed without it (uv's
default), every command compiled every module it imports from source, on every run: about
2 s of the CPU of a million-point refresh, and most of the start-up of any command (Polars,
DuckDB, typer, pydantic and this project, ~650 modules). `keep_in_environment` (called by
`gpu_pricing.cli` before it imports anything heavy) sends the bytecode of every module the
command imports to one folder of the virtual environment, `<venv>/gpu-pricing-pycache`
(Python's `sys.pycache_prefix`): the first command compiles and writes it there, the
next ones read it. Nothing is written beside the sources: not in the checkout, nor in the
packages' folders.

Left as it is: Python writing bytecode as usual (`__pycache__` folders), a
`PYTHONPYCACHEPREFIX` of its own (the test suite's, say), an interpreter outside a virtual
environment (nothing is written into a system Python), an environment whose packages are
compiled already (`uv sync --compile-bytecode`), and `GPU_PRICING_NO_BYTECODE=1`.
"""

from __future__ import annotations

import os
import sys
from importlib.util import cache_from_source, find_spec

FOLDER = "gpu-pricing-pycache"
OFF = "GPU_PRICING_NO_BYTECODE"
# a package every command imports, read to tell whether the environment is compiled
_PROBE = "typer"


def folder() -> str | None:
    """Where this process should keep its bytecode, or None to leave Python as it is."""
    if not sys.dont_write_bytecode or sys.pycache_prefix or os.environ.get("PYTHONPYCACHEPREFIX"):
        return None
    if os.environ.get(OFF, "") not in ("", "0") or sys.prefix == sys.base_prefix:
        return None
    spec = find_spec(_PROBE)
    if spec is None or spec.origin is None or os.path.exists(cache_from_source(spec.origin)):
        return None
    return os.path.join(sys.prefix, FOLDER)


def keep_in_environment() -> None:
    """From now on this process reads and writes its modules' bytecode in `folder()`."""
    where = folder()
    if where is not None:
        sys.pycache_prefix = where
        sys.dont_write_bytecode = False
