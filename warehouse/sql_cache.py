"""The SQL project as read (its declared relations, its lineage), kept while its files stay
as they are.

Reading the project is a parse of ~45 schema files (YAML) and of ~40 statements (DuckDB's
parser): ~0.2 s of every refresh that builds views or stores marts, and of `check`, with
the same result every time until a file changes. `kept(what, sql_dir, read)` returns
`read()`'s result:
- kept in this process, per `what`, SQL folder and state of its files;
- kept between commands, as a pickle in the command line's bytecode folder when it has one
  (`sys.pycache_prefix`, gpu_pricing.cli._bytecode: the virtual environment's, or the
  user's own), named by a digest of every file of the project, of the code that reads them
  and of the versions of Python, DuckDB and PyYAML: an edited file is another name, read
  again. Nothing is written where Python keeps no bytecode folder.

What decides is the files' contents: an edited file is read again at once
(warehouse.file_digest).
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Iterable
from functools import cache
from pathlib import Path
from typing import TypeVar

import duckdb

from warehouse.file_digest import files_digest

T = TypeVar("T")

FOLDER = "gpu-pricing-sql"
_SUFFIXES = (".sql", ".yml", ".yaml", ".md")
# the code that reads the project: a change to it is a change to what is kept
_READERS = ("sql_runner.py", "lineage.py", "sql_cache.py")
_memo: dict[tuple[str, str], object] = {}


@cache  # where the code is does not change in a process
def _code() -> list[Path]:
    """The code that reads the project: ours, and PyYAML's (its version is in the file
    hashed, found without importing it); DuckDB's version is hashed as a string."""
    from importlib.util import find_spec

    here = Path(__file__).resolve().parent
    yaml = find_spec("yaml")
    return [here / name for name in _READERS] + (
        [Path(yaml.origin)] if yaml and yaml.origin else []
    )


def digest(sql_dir: Path, also: Iterable[Path] = ()) -> str:
    """The state of the SQL project at `sql_dir` (every file read from it, and `also`) and
    of the code that reads it (warehouse.file_digest: contents decide)."""
    root = Path(sql_dir).resolve()
    files = sorted(p for p in root.rglob("*") if p.suffix in _SUFFIXES and p.is_file())
    versions = f"{sys.version}\0{duckdb.__version__}".encode()
    return files_digest([*files, *also, *_code()], head=versions)


def _folder() -> Path | None:
    prefix = sys.pycache_prefix
    return Path(prefix) / FOLDER if prefix else None


def kept(what: str, sql_dir: Path, read: Callable[[], T], also: Iterable[Path] = ()) -> T:
    """`read()`, or what it returned for the project in this state (see the module);
    `also`: files outside `sql_dir` it reads (each connector's sources)."""
    key = (what, digest(sql_dir, also))
    if key in _memo:
        return _memo[key]  # type: ignore[return-value]
    folder = _folder()
    target = folder / f"{what}-{key[1]}.pickle" if folder is not None else None
    value: object = None
    if target is not None:
        try:
            value = pickle.loads(target.read_bytes())
        except Exception:  # absent, or unreadable: read the project again
            value = None
    if value is None:
        value = read()
        if target is not None:
            _write(target, pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL))
    _memo[key] = value
    return value  # type: ignore[return-value]


def _write(target: Path, data: bytes) -> None:
    """Whole or absent, as the bytecode beside it; a folder that cannot be written to only
    costs the next command the read."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except OSError:
        tmp.unlink(missing_ok=True)
