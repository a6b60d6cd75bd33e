"""Composition of one refresh, without Prefect: the single writer (orchestration only;
the staging itself is warehouse/staging.py).

`fetch_pages` gets a provider's pages (live or from a snapshot); `load_and_publish` lands
every provider's pages in the raw store (the ledger in the warehouse), re-parses each
provider whose current pages changed straight from the store, stages, quarantines,
merges history, rebuilds views, runs the assertions and publishes atomically. A provider
whose current pages (and parsing code) are the ones its staged offers came from is not
re-parsed, re-staged or re-merged. The Prefect flow (flows/refresh.py) wraps these two in
tasks.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import Callable, Collection, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from common import schemas
from common.errors import PricingError
from common.schemas import staging_ddl, staging_migrations
from connectors import registry
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from flows import progress
from warehouse import (
    db,
    history,
    materialise,
    plausibility,
    raw,
    restage,
    spot_openings,
    sql_runner,
)
from warehouse.ahead import parse_ahead
from warehouse.checks import Checking, assert_healthy, checked_loads
from warehouse.db import run
from warehouse.file_digest import files_digest
from warehouse.rawstore import DamagedObject, RawStore
from warehouse.snapshot_files import RecordedPage, SnapshotFiles
from warehouse.staging import (
    ProviderSummary,
    hold_back,
    parsed_from,
    sql_digest,
    stage_provider,
    views_current,
)

if TYPE_CHECKING:
    from connectors.kit.connector import Connector

log = logging.getLogger(__name__)


@dataclass
class RunSummary:
    run_id: str
    warehouse: str
    source: str
    providers: list[ProviderSummary]
    history: dict[str, int]
    assertions: dict[str, int]
    timings: dict[str, float] = field(default_factory=dict)  # stage -> seconds
    # stage -> CPU seconds of the whole process during it (every thread: the checks that
    # run beside the marts' build count in `materialise`)
    cpu_timings: dict[str, float] = field(default_factory=dict)
    # every row checked (warehouse.checks), not only the rows of the loads parsed now
    full_check: bool = False

    @property
    def exit_code(self) -> int:
        statuses = {p.status for p in self.providers}
        if not self.providers or (statuses <= {"failed", "skipped"} and "failed" in statuses):
            return 3
        return 1 if statuses & {"failed", "partial"} else 0

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for p, s in zip(d["providers"], self.providers, strict=True):
            p["status"] = s.status
        d["exit_code"] = self.exit_code
        return d


def one_line(exc: BaseException, limit: int = 400) -> str:
    """An error as one line: its first line (Polars appends its query plan over many
    lines), the type named where the text alone would not say what failed, cut to `limit`."""
    first = next((ln.strip() for ln in str(exc).splitlines() if ln.strip()), "")
    if isinstance(exc, _polars_error()):
        first = f"{type(exc).__name__}: {first}"
    if isinstance(exc, DamagedObject) or len(first) <= limit:  # its repair hint is whole
        return first
    return first[: limit - 3] + "..."


class _NoPolarsError(Exception):
    """Raised by nothing: what `_polars_error` names before Polars is loaded."""


def _polars_error() -> tuple[type[BaseException], ...]:
    """Polars' error types, once a parse has imported Polars (before, none can be raised:
    a refresh that parses nothing never imports it): its errors, and its panics (a Rust
    assertion inside Polars, a `BaseException`), so that one provider's rows meeting a
    Polars bug fail that provider alone."""
    polars = sys.modules.get("polars")
    if polars is None:
        return (_NoPolarsError,)
    return (polars.exceptions.PolarsError, polars.exceptions.PanicException)


@dataclass(frozen=True)
class SnapshotPages:
    """A provider's recorded pages, read from disk each time they are iterated: the single
    writer lands them one by one as it reads them, so a large snapshot (a million items,
    hundreds of MB) never sits in memory whole. A bad file fails the landing, and so the
    build: nothing of the refresh is published. With `files` (`recorded_in`), a file
    unchanged since its last landing is not read: its record stands for it
    (warehouse.snapshot_files)."""

    root: Path
    provider: str
    files: SnapshotFiles | None = None

    def recorded_in(self, store: RawStore, *, reuse: bool) -> SnapshotPages:
        """The same pages, each file taken from its record in `store` when unchanged (with
        `reuse`; without, every file is read) and its record written by `remember`."""
        return replace(self, files=SnapshotFiles(store, self.root, self.provider, reuse=reuse))

    def remember(self) -> None:
        """Write the records of the files landed (call after the landing)."""
        if self.files is not None:
            self.files.save()

    def __iter__(self) -> Iterator[Page | RecordedPage]:
        """The pages in `read_provider`'s order, each file read (and its envelope split) on
        one of two workers a few pages ahead, while the landing hashes the pages before."""
        files = kit_snapshot.provider_files(self.root, self.provider)
        read = (
            partial(kit_snapshot.read_page, self.provider) if self.files is None
            else self.files.read
        )  # fmt: skip
        with ThreadPoolExecutor(2) as pool:
            ahead: deque[Future[Page | RecordedPage]] = deque()
            try:
                for endpoint, path in files:
                    ahead.append(pool.submit(read, endpoint, path))
                    if len(ahead) > _READ_AHEAD:
                        yield ahead.popleft().result()
                while ahead:
                    yield ahead.popleft().result()
            finally:
                for future in ahead:
                    future.cancel()


_READ_AHEAD = 8  # pages read before the landing takes them: a few MB at most
# the bytes of the pages a refresh writes, held from their landing to their parse at most
# (warehouse.rawstore.RawStore.keep): 1M AWS spot points are ~160 MB of pages, which the
# parse holds whole anyway; a provider parsed in batches holds its objects instead (a
# million Azure items, 586 MB of pages, are ~25 MB compressed), as a batch holds only its
# own pages. Only the first provider's, the first parsed: held pages never sit in memory
# while another provider parses
_KEEP_BYTES = 256 << 20


SPOOL_PREFIX = "gpu-pricing-fetch-"


class SpooledPages:
    """A live fetch's pages, each written to a temporary folder as it arrives and read
    back one at a time as it is landed: the fetch ends before the warehouse is written (the
    network is not held open meanwhile) and no crawl sits in memory whole, only each page's
    request and fetch time. A downloaded file (`Page.path`) stays where it is; a failure is
    kept as it is. The folder (named with the process's id) goes with the object (after
    the landing); one a killed refresh left (its process gone) goes with the next spool."""

    def __init__(self, items: Iterable[Page | FetchFailure]) -> None:
        _discard_stale_spools()
        self._folder = tempfile.TemporaryDirectory(prefix=f"{SPOOL_PREFIX}{os.getpid()}-")
        self._items: list[Page | FetchFailure | tuple[Page, Path]] = []
        self.pages = 0
        for n, item in enumerate(items):
            if isinstance(item, Page):
                self.pages += 1
                if item.path is None:
                    body = Path(self._folder.name) / f"{n}.json"
                    body.write_bytes(item.compact().content)
                    item = (replace(item, body=None, text=None, data=None), body)
            self._items.append(item)

    def __iter__(self) -> Iterator[Page | FetchFailure]:
        for item in self._items:
            if isinstance(item, tuple):
                page, body = item
                yield replace(page, data=body.read_bytes())
            else:
                yield item


def _discard_stale_spools() -> None:
    """Delete the spool folders of processes that are gone (a refresh killed while it
    landed: a million-item crawl leaves ~600 MB behind), in the system's temporary folder."""
    for folder in Path(tempfile.gettempdir()).glob(f"{SPOOL_PREFIX}*-*"):
        pid = folder.name[len(SPOOL_PREFIX) :].split("-")[0]
        if not pid.isdigit():
            continue  # not named by this code
        try:
            os.kill(int(pid), 0)  # the process is there (or someone else's): kept
        except ProcessLookupError:
            shutil.rmtree(folder, ignore_errors=True)
        except PermissionError:
            pass


def _import_for_parse(connector: Connector) -> None:
    """Import what `connector`'s parse runs on (Polars, pyarrow, its parse module) on a
    thread of its own, while its pages are still landing: a landing that writes a page
    calls this (warehouse.raw.store_pages `on_write`), so its parse follows, and the import
    (~0.7 s of one core for Polars where modules are compiled on every run) no longer waits
    for the landing to end. An unchanged refresh writes no page and imports none of it.
    A failed import is left to the parse, which imports them again and reports it."""

    def load() -> None:
        with contextlib.suppress(Exception):
            import polars  # noqa: F401
            import pyarrow  # noqa: F401

            resolve = getattr(connector.parse_pages, "resolve", None)  # a `later` parse
            if resolve is not None:
                resolve()

    threading.Thread(target=load, name="import-for-parse", daemon=True).start()


def fetch_pages(
    provider: str, snapshot: str | Path | None, ctx: FetchContext
) -> SnapshotPages | SpooledPages:
    """A provider's pages: from a snapshot, read as they are landed (`SnapshotPages`);
    live, fetched now and spooled to disk page by page (`SpooledPages`)."""
    connector = registry.get(provider)
    if snapshot is not None:
        return SnapshotPages(kit_snapshot.resolve(snapshot), provider)
    return SpooledPages(connector.fetch_live(ctx))


def make_staged_tables(con) -> None:
    """Every connector's staging table and the tables it stages besides (their declared
    DDL: `CREATE TABLE IF NOT EXISTS`)."""
    for connector in registry.PROVIDERS.values():
        run(con, staging_ddl(connector.staging_table))
        for table in connector.staged:
            run(con, table.ddl)


def _add_staged_columns(con) -> None:
    """The columns added to the staged schema since a staging table was made: only those
    it lacks (a statement per column and connector cost more than a small refresh's
    landing)."""
    present = set(run(con, "SELECT table_name, column_name FROM duckdb_columns()"
                           " WHERE database_name = current_database()"
                           " AND schema_name = 'main'"))  # fmt: skip
    for connector in registry.PROVIDERS.values():
        for migration in staging_migrations(connector.staging_table, present):
            run(con, migration)


def tables_digest() -> str:
    """A digest of the code that declares the staged tables (`make_staged_tables`): every
    connector's package and kit, the staged schema (common/schemas.py) and this module."""
    package = Path(registry.__file__).parent
    root = package.parent
    return files_digest(
        sorted([*package.rglob("*.py"), Path(schemas.__file__), Path(__file__)]), root
    )


def _tables_made(con, digest: str) -> bool:
    """Whether the last published refresh made the staged tables with code of `digest` and
    every connector's staging table is there: then `make_staged_tables` would change
    nothing (it imports each connector's declarations, Polars with them)."""
    last = run(
        con,
        "SELECT tables_digest FROM _runs WHERE status = 'ok' ORDER BY started_at DESC LIMIT 1",
    )
    if not last or last[0][0] != digest:
        return False
    names = [c.staging_table for c in registry.PROVIDERS.values()]
    found = run(
        con,
        """SELECT count(*) FROM duckdb_tables() WHERE database_name = current_database()
           AND schema_name = 'main' AND table_name IN (SELECT unnest($names::VARCHAR[]))""",
        {"names": names},
    )
    return found[0][0] == len(names)


def load_and_publish(
    path: Path,
    fetched: dict[str, Iterable[Page | FetchFailure]],
    *,
    source: str,
    run_id: str | None = None,
    checks: plausibility.Checks | None = None,
    accept_drop: Collection[str] = (),
    alerts: Callable[[Any], Any] | None = None,
    full_check: bool = False,
) -> RunSummary:
    """Land, parse, stage, check, merge, assert and publish. `checks`: the plausibility
    figures (gpu-pricing.toml's [checks]; defaults: warehouse.plausibility.Checks);
    `accept_drop`: connectors whose fall in offers beyond `checks.max_drop_pct` is
    accepted this once (`refresh --accept-drop`). `alerts`, when given, is called with the
    build's connection once its marts are current, before the publish: it reads them as
    built (no second build); its writes are one transaction, and its failure is logged and
    rolled back, never failing the refresh. The checks cover the rows of the loads this
    refresh parsed (warehouse.checks); every row with `full_check`, and when the SQL
    changed since the last published refresh. `full_check` also has the landing compare
    every stored raw object it meets with the page just fetched (a damaged one is
    rewritten); otherwise a stored object is trusted once its zstd frame is whole and of
    the page's length (warehouse.rawstore.RawStore.put)."""
    checks = checks or plausibility.Checks()
    run_id = run_id or raw.new_run_id()
    started = utc_now()
    fetched = dict(fetched)  # popped below; the caller's dict stays as it was
    summaries: dict[str, ProviderSummary] = {}
    timings: dict[str, float] = {}
    cpu_timings: dict[str, float] = {}
    clock, cpu_clock = time.perf_counter(), time.process_time()

    def lap(stage: str) -> None:
        nonlocal clock, cpu_clock
        now, cpu_now = time.perf_counter(), time.process_time()
        timings[stage] = timings.get(stage, 0.0) + now - clock
        cpu_timings[stage] = cpu_timings.get(stage, 0.0) + cpu_now - cpu_clock
        clock, cpu_clock = now, cpu_now
        progress.done_now("warehouse", stage, timings[stage])

    store = RawStore.beside(path)
    with db.building(path) as con:
        lap("copy")
        store.discard_partial()  # under the refresh lock: a killed refresh's temp files
        if raw.legacy_tables(con):  # written before the raw store: moved out, once
            raw.migrate_legacy(con, store)
            lap("migrate")
        run(
            con,
            "INSERT INTO _runs (run_id, started_at, source, providers) VALUES (?, ?, ?, ?)",
            [run_id, started, source, ",".join(fetched)],
        )
        tables = tables_digest()
        if not _tables_made(con, tables):
            make_staged_tables(con)
        _add_staged_columns(con)
        landed: list[tuple[str, raw.Landed]] = []
        replayed: list[SnapshotPages] = []
        for n, name in enumerate(list(fetched)):
            connector = registry.get(name)
            summary = summaries[name] = ProviderSummary(name)
            # pop: the pages are in the raw store now, and parse reads them back from it
            pages = fetched.pop(name)
            if isinstance(pages, SnapshotPages):  # the full check reads every file
                pages = pages.recorded_in(store, reuse=not full_check)
                replayed.append(pages)
            if n == 0:  # the first provider's pages are held for its parse (`_KEEP_BYTES`)
                store.keep(_KEEP_BYTES, compressed=connector.batched_endpoint is not None)
            with progress.step(name, "land") as landing:
                # the full check also compares each stored object with the page fetched
                landed.append((name, raw.store_pages(
                    run_id, name, pages, store, compare=full_check, keep=n == 0,
                    on_write=partial(_import_for_parse, connector),
                )))  # fmt: skip
            summary.land_seconds = round(landing.seconds, 3)
        # every provider's pages in the ledger at once, once the store has synced them
        raw.record(con, run_id, [one for _, one in landed], store)
        for pages in replayed:
            pages.remember()  # after the landing synced the objects its records name
        refreshed = []
        for name, one in landed:
            summary = summaries[name]
            for load in one.loads:
                summary.fetched += load.pages
                summary.unchanged += load.pages_unchanged
                where = f"{load.endpoint}/{load.scope or '*'}: {load.error}"
                if load.status == "failed":
                    summary.failed.append(where)
                elif load.status == "skipped":
                    summary.skipped.append(where)
            if any(ld.status == "ok" for ld in one.loads):
                refreshed.append(name)
        if refreshed[:1] != list(summaries)[:1]:  # the first provider landed is not parsed
            store.keep(0)
        lap("land")
        # every refreshed provider's current pages, read from the ledger at once (the
        # parses below change none of it)
        current = raw.current_pages(con, {n: registry.get(n).endpoints for n in refreshed})
        # what each one's staged offers were parsed from, and its current pages
        parsed = {name: parsed_from(con, name, current[name]) for name in refreshed}
        # the small ones parsed now and normalised together (each still staged, or
        # failed, on its own below)
        with progress.step("warehouse", "parse small providers"):
            ahead = parse_ahead(store, parsed)
        for name in list(refreshed):
            emptied = None
            parsed_ahead = ahead.pop(name, None)  # taken out: dropped once it is staged
            try:
                with progress.step(name, "parse/stage") as staging_step:
                    # its staged offers' blocks freed for the new ones (put back from the
                    # published file if the parse fails: warehouse.restage)
                    emptied = restage.empty(con, name, parsed[name])
                    # one transaction: a provider that fails half-way keeps every staged
                    # table it had (its series and specs as well as its offers)
                    with db.transaction(con):
                        staged = stage_provider(
                            con,
                            run_id,
                            name,
                            summaries[name],
                            store,
                            max_drop_pct=0.0 if name in accept_drop else checks.max_drop_pct,
                            emptied=emptied,
                            parsed=parsed[name],
                            ahead=None if parsed_ahead is None else parsed_ahead.result,
                        )
                if not staged:
                    refreshed.remove(name)  # unchanged: its staged offers and history stand
            except (PricingError, *_polars_error(), DamagedObject) as exc:
                # a provider whose pages no longer parse (or whose raw object is damaged)
                # keeps its last staged offers (and its history stays open); the others
                # still publish
                log.error("%s: parse failed, keeping its last good data: %s", name, one_line(exc))
                summaries[name].failed.append(f"parse: {one_line(exc)}")
                summaries[name].parse_failed = True
                refreshed.remove(name)
                if emptied is not None:
                    restage.restore(con, name, path)
            finally:
                parse_seconds = 0.0 if parsed_ahead is None else parsed_ahead.seconds
                summaries[name].stage_seconds = round(staging_step.seconds + parse_seconds, 3)
                store.keep(0)  # after the first provider's parse, nothing is held
        lap("parse_stage")
        sql = sql_digest()
        # what the last published refresh asserted its data with and built its views from
        asserted, built = (
            run(
                con,
                """SELECT asserted_sql, views_digest FROM _runs WHERE status = 'ok'
                   ORDER BY started_at DESC LIMIT 1""",
            )
            or [(None, None)]
        )[0]

        def check_alerts() -> None:
            if alerts is None:
                return
            try:
                with db.transaction(con):
                    alerts(con)
            except Exception as exc:  # the refresh publishes all the same
                log.error("alerts check failed (the refresh itself is published): %s", exc)
            lap("alerts")

        full_check = full_check or asserted != sql
        views, rebuilt = built, False
        if refreshed or full_check:
            # the seeds, views and macros as the last published build made them are kept
            # when nothing they are made from changed (staging.views_current)
            views, kept = views_current(con, built)
            if not kept:
                with db.transaction(con):  # one commit for the seeds, views and macros
                    sql_runner.load_seeds(con)
                    sql_runner.build_views(con)
                rebuilt = True
            lap("views")
            loads = None if full_check else checked_loads(con)
            hold_back(con, refreshed, summaries, checks, loads)
            # the stored marts' blocks freed before the history's changes are written
            materialise.make_room(con)
            merged = history.merge(con, refreshed, utc_now())
            spot_openings.advance(con, loads)  # what the spot statistics keep of old points
            lap("history")
            # each intermediate view computed once, the stored marts built among them;
            # the checks that read none of what it makes run beside it
            checking = Checking(con, scoped=not full_check)
            with materialise.computed_once(con, materialise_marts=True, checks=checking):
                lap("materialise")
                results = assert_healthy(con, checks=checking)
                lap("assertions")
                check_alerts()  # the alert inputs read the intermediate views held here too
        else:  # nothing re-staged, same SQL: the published data passed these assertions
            merged, results = {"opened": 0, "closed": 0}, []
            check_alerts()
        run(
            con,
            """UPDATE _runs SET finished_at = ?, status = ?, asserted_sql = ?,
                                views_digest = ?, views_rebuilt = ?, tables_digest = ?
               WHERE run_id = ?""",
            [utc_now(), "ok", sql, views, rebuilt, tables, run_id],
        )
    lap("publish")
    return RunSummary(
        run_id=run_id,
        warehouse=str(path),
        source=source,
        providers=list(summaries.values()),
        history=merged,
        assertions={r.name: r.failures for r in results},
        timings={k: round(v, 3) for k, v in timings.items()},
        cpu_timings={k: round(v, 3) for k, v in cpu_timings.items()},
        full_check=full_check,
    )
