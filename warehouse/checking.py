"""Read-only queries (the warehouse's checks) run two at a time, and while a build goes on.

A check is a query that reads some relations; `Queries` runs a list of them on the build's
own connection and on a second connection to the same database (a mirror: it reads what
the first one reads: its temporary views, a build's held views, and what `prepare` sets up
on it, the checks' scope). Most checks are short scans and aggregates whose
single-threaded parts (planning, merging a hash table, reading a result back) leave a core
idle, so two at a time finish sooner on two cores.

During a build (warehouse.materialise.computed_once), the build names the relations it is
about to make (`building`) and each one as it is made (`built`): a query that reads none
of those still to be made, directly or through a view, starts on the mirror at once, so
the checks of the history and the ledger run beside the build's long statements instead
of after them; the others wait for what they read. Once the build is done, `results` runs
what is left on both connections. Each query sees the relations it reads as the build
leaves them: it starts only once they are made and committed, and nothing the build does
later writes them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import duckdb

from warehouse.db import run

Connection = duckdb.DuckDBPyConnection


@dataclass(frozen=True)
class Query:
    run: Callable[[Connection], Any]  # the query, on the connection it is given
    reads: frozenset[str]  # every relation it reads, directly or through views and macros


def upstream(names: Iterable[str], graph: Mapping[str, set[str]]) -> frozenset[str]:
    """`names` and every relation they read, directly or through views and macros
    (`graph`: warehouse.sql_runner.lineage_graph)."""
    seen: set[str] = set()
    todo = [n.lower() for n in names]
    while todo:
        name = todo.pop()
        if name not in seen:
            seen.add(name)
            todo.extend(graph.get(name, ()))
    return frozenset(seen)


def temporary_views(con: Connection) -> list[str]:
    """The statements that make `con`'s own temporary views (the held views of a build)."""
    return [
        sql
        for (sql,) in run(
            con, "SELECT sql FROM duckdb_views() WHERE temporary AND NOT internal ORDER BY view_oid"
        )
    ]


class Queries:
    """`queries` run on `con` and a mirror of it, two at a time; `prepare` sets up the
    mirror (after it has `con`'s temporary views). Start them beside a build with
    `building`, report each relation made with `built`, then collect with `results`; or
    call `results` alone. `stop` (idempotent) interrupts and closes whatever still runs."""

    def __init__(
        self, con: Connection, queries: list[Query], prepare: Callable[[Connection], None]
    ) -> None:
        self._con = con
        self._queries = queries
        self._prepare = prepare
        self._results: list[Any] = [None] * len(queries)
        self._queue = list(range(len(queries)))
        self._pending: set[str] = set()  # relations the build has still to make
        self._views: list[str] = []  # the held views made so far, for the mirror
        self._cond = threading.Condition()
        self._error: BaseException | None = None
        self._stopped = False
        self._mirror: Connection | None = None
        self._thread: threading.Thread | None = None

    def building(self, names: Iterable[str]) -> None:
        """The build is about to make `names`: start the queries that read none of them."""
        with self._cond:
            self._pending |= {n.lower() for n in names}
        self._start()

    def built(self, name: str, view: str | None = None) -> None:
        """The build made `name` (committed); `view`: the statement of the temporary view
        that reads its held rows, made on the build's connection, to make on the mirror."""
        with self._cond:
            self._pending.discard(name.lower())
            if view:
                self._views.append(view)
            self._cond.notify_all()

    def results(self) -> list[Any]:
        """Every query's result, in the queries' order, once the build (if any) is done:
        what is left runs on both connections. The first error of a query is raised."""
        with self._cond:
            self._pending.clear()
            self._cond.notify_all()
        self._start()
        try:
            self._work(self._con)
        except BaseException:  # a Ctrl-C between two queries: the mirror's stops too
            self.stop()
            raise
        finally:
            self._join()
        if self._error is not None:
            raise self._error
        return self._results

    def stop(self) -> None:
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        if self._mirror is not None:
            self._mirror.interrupt()
        self._join()

    # -- the mirror's thread

    def _start(self) -> None:
        if self._thread is not None or len(self._queue) < 2:
            return
        mirror = self._con.cursor()
        try:
            run(mirror, "SET enable_progress_bar = false")
            for sql in temporary_views(self._con):
                run(mirror, sql)
            self._prepare(mirror)
        except BaseException:
            mirror.close()
            raise
        self._mirror = mirror
        self._thread = threading.Thread(
            target=self._work, args=(mirror, True), name="checks", daemon=True
        )
        self._thread.start()

    def _join(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None
        if self._mirror is not None:
            self._mirror.close()
            self._mirror = None

    def _next(self) -> int | None:
        """The first queued query that reads nothing still to be made (under the lock)."""
        for position, index in enumerate(self._queue):
            if not self._queries[index].reads & self._pending:
                return self._queue.pop(position)
        return None

    def _work(self, con: Connection, mirror: bool = False) -> None:
        made = 0  # the held views made on this connection so far (the mirror's)
        while True:
            with self._cond:
                while True:
                    if self._error is not None or self._stopped or not self._queue:
                        return
                    index = self._next()
                    if index is not None:
                        break
                    self._cond.wait()
                views = self._views[made:] if mirror else []
            try:
                for sql in views:
                    run(con, sql)
                made += len(views)
                self._results[index] = self._queries[index].run(con)
            except BaseException as exc:
                with self._cond:
                    if self._error is None:
                        self._error = exc
                    self._cond.notify_all()
                if not mirror and self._mirror is not None:
                    self._mirror.interrupt()  # the mirror's query stops too; the build's
                    # own statements, on the first connection, are never interrupted
                return
