"""What every command shares: the --warehouse, --json and --config options, the warehouse
path resolution, and `run()`, which maps errors to exit codes (0 ok, 1 partial, 2 usage or
input error, 3 nothing landed) with one line on stderr, the traceback only with --debug."""

from __future__ import annotations

import sys
import traceback
from pathlib import Path
from typing import Annotated

import typer

from common.errors import AssertionsFailed, InvalidInput, PricingError, StorageFull, WarehouseError
from gpu_pricing.cli._output import err

WarehouseOpt = Annotated[
    Path | None,
    typer.Option(
        "--warehouse",
        help="DuckDB file (default: $GPU_PRICING_WAREHOUSE, else warehouse/gpu_pricing.duckdb)",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]


def warehouse_path(path: Path | None) -> Path:
    """The warehouse a reading command reads: --warehouse, else what the Python API reads
    (`gpu_pricing.api.warehouse_path`: $GPU_PRICING_WAREHOUSE, else gpu-pricing.toml's
    `warehouse`, else warehouse/gpu_pricing.duckdb under the working directory, or the
    checkout's when there is none there)."""
    if path is not None:
        return path
    from gpu_pricing.api import warehouse_path as reading

    return reading()


def parse_providers(value: str | None) -> list[str] | None:
    if not value:
        return None
    from connectors import registry

    names = [p.strip() for p in value.split(",") if p.strip()]
    for name in names:
        registry.get(name)  # raises InvalidInput naming the value
    return names


DEBUG = False  # --debug: tracebacks with the error lines (set by the root callback)


def _fail(message: str, code: int) -> typer.Exit:
    if DEBUG:
        traceback.print_exc()
    err(message)
    return typer.Exit(code)


class _NoCatalogError(Exception):
    """Raised by nothing: what `_catalog_error` names before DuckDB is loaded."""


def _catalog_error() -> type[Exception]:
    """DuckDB's missing-relation error, once a command has loaded DuckDB (a command that
    never loads it cannot raise it, and starts without importing it)."""
    duckdb = sys.modules.get("duckdb")
    return duckdb.CatalogException if duckdb is not None else _NoCatalogError


def run(fn, *args, **kwargs):
    """Call a command body, mapping errors to the contract's exit codes with one line on
    stderr (and the traceback with --debug)."""
    try:
        return fn(*args, **kwargs)
    except (InvalidInput, ValueError) as exc:
        raise _fail(str(exc), 2) from None
    except (AssertionsFailed, StorageFull) as exc:  # the refresh published nothing
        raise _fail(str(exc), 3) from None
    except WarehouseError as exc:
        raise _fail(str(exc), 2) from None
    except _catalog_error() as exc:
        first = str(exc).splitlines()[0]
        raise _fail(
            f"the warehouse lacks a relation this command reads ({first}): "
            "run `gpu-pricing refresh` first",
            2,
        ) from None
    except PricingError as exc:
        raise _fail(str(exc), 3) from None
    except (PermissionError, IsADirectoryError, NotADirectoryError) as exc:
        # a path the user gave (--warehouse, --out, ...) that cannot be written there
        where = exc.filename or "a file"
        raise _fail(f"cannot write {where}: {(exc.strerror or str(exc)).lower()}", 2) from None
    except KeyboardInterrupt:
        # a refresh publishes whole or not at all: its working copy is removed on the way out
        raise _fail("interrupted: stopped before the command finished", 130) from None
    except (typer.Exit, typer.Abort):
        raise
    except BrokenPipeError:  # the reader stopped reading (`| head`): click ends quietly
        raise
    except Exception as exc:  # a bug, not the user's doing: one line, details with --debug
        first = (str(exc).splitlines() or [""])[0]
        raise _fail(
            f"unexpected {type(exc).__name__}: {first} (rerun with --debug for the traceback)",
            1,
        ) from None


def providers_in(con) -> list[str]:
    """The providers a warehouse holds prices for (a sheet may add one)."""
    import duckdb

    from warehouse import db, queries

    try:
        return [r[0] for r in db.run(con, queries.sql("providers_seen"))]
    except duckdb.Error:
        return []


def open_readonly(path: Path):
    from warehouse import db

    try:
        return db.connect_readonly(path)
    except WarehouseError as exc:
        raise InvalidInput(str(exc)) from None


ConfigOpt = Annotated[
    Path | None,
    typer.Option(
        "--config",
        help="gpu-pricing.toml (default: $GPU_PRICING_CONFIG, else ./gpu-pricing.toml if present)",
    ),
]
