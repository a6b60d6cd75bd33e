"""A refresh step stopped under Prefect (Ctrl-C while DuckDB runs a query) leaves no local
variable alive in its exception: Prefect keeps that exception in the run's state until the
process ends, and a DuckDB connection kept with it outlives DuckDB's module at exit
("nanobind: leaked ..." lines; the served case is tests/flows/test_serve_stop.py)."""

from __future__ import annotations

import gc
import weakref

import pytest

from flows.refresh import _no_warehouse_kept_by_the_error


class Connection:
    """Stands for the DuckDB connection a step holds (DuckDB's own takes no weak reference)."""


def step(seen: list[weakref.ref]) -> None:
    con = Connection()
    seen.append(weakref.ref(con))
    query(con)


def query(con: Connection) -> None:
    try:
        raise RuntimeError("Query interrupted")  # what DuckDB raises on Ctrl-C
    except RuntimeError:
        raise KeyboardInterrupt from None  # chained (__context__) all the same


def stopped(guarded: bool) -> tuple[BaseException, weakref.ref]:
    seen: list[weakref.ref] = []
    with pytest.raises(KeyboardInterrupt) as info:
        if guarded:
            with _no_warehouse_kept_by_the_error():
                step(seen)
        else:
            step(seen)
    gc.collect()
    return info.value, seen[0]


def test_a_stopped_step_s_exception_keeps_no_connection():
    held, alive = stopped(guarded=False)
    assert alive() is not None  # what Prefect's kept exception did before
    del held

    kept, gone = stopped(guarded=True)
    assert gone() is None
    # still the same error, chain and traceback (lines), for the logs and --debug
    assert isinstance(kept.__context__, RuntimeError)
    assert kept.__traceback__ is not None
