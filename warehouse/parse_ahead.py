"""A batched connector's pages parsed while they land, staged only once the ledger names
them.

The landing of a million Azure items (warehouse.raw.land) reads, hashes, compresses and
writes pages for ~2 s while one core is mostly idle; the parse that follows takes ~4 s.
`ParseAhead` follows the landing (`land(follow=...)`) and parses each batch of the
batched endpoint's pages (warehouse.batches) as soon as its last page is stored, on a
thread of its own. Nothing it parses is staged before the landing has ended, its objects
are synced and the ledger that names them is written: `stage_provider` then asks for the
results (`parsed`), and gets them only when the current pages it reads from the ledger
are exactly the pages parsed (every row of `current_index`: the same pages, loads,
lineage, order and so batches); otherwise the parse runs from the store as it would
have. So every staged price still traces to a landed, recorded page, a refresh killed
mid-way leaves what a refresh killed during its landing leaves (the build is a copy,
published whole or not at all), and a parse that fails in a batch fails its provider in
`stage_provider`'s transaction as before, its pages recorded.

Only what the ledger will list as landed by this run can be parsed ahead: it stops (and
the parse runs after the landing, as before) at the first page already stored (an
unchanged page's lineage is an earlier load's), a page out of the ledger's order, a page
of another endpoint, or a fetch failure of the batched one. An unchanged refresh writes no page and starts
nothing. Memory stays bounded: a batch's pages are read back from the store (or as the
store holds them: `RawStore.keep`) when it is parsed, one batch ahead, and at most
`_RESULTS` parsed batches wait for the staging.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import duckdb

from connectors.kit.connector import Connector
from warehouse import batches, raw
from warehouse.rawstore import RawStore

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.normalise import Normalised
    from connectors.kit.page import FetchFailure

# parsed batches waiting for the staging (a batch's normalised offers are ~6 MB at 32 MB
# of Azure pages): the landing of a million items ends after about this many
_RESULTS = 8


class _Failed:
    def __init__(self, exc: BaseException) -> None:
        self.exc = exc


_END = object()


class ParseAhead:
    """The batched endpoint's pages of one landing, parsed as they land (module doc).
    Use as a context manager (its thread is stopped and joined on exit); hand `follow` to
    the landing, call `landed` when it has ended, and `parsed` in the provider's staging."""

    def __init__(
        self,
        con: duckdb.DuckDBPyConnection,
        connector: Connector,
        store: RawStore,
    ) -> None:
        self._con, self._connector, self._store = con, connector, store
        self._batch_bytes = batches.BATCH_BYTES  # as the parse after the landing reads it
        self._state = "waiting"  # -> "running" (a page parsed ahead) -> "landed"; or "off"
        self._columns: list[str] = []  # current_index's, as the rows below hold them
        self._schema: Any = None
        self._rest: pl.DataFrame | None = None  # the other endpoints' current pages
        self._rows: list[tuple] = []  # every page followed, as current_index will list it
        self._batch: list[tuple] = []  # the rows of the batch landing now
        self._number = 0  # its number (raw.batch_of)
        self._bytes = 0  # payload bytes of the pages before
        self._last: tuple[str, int] | None = None  # (load_id, seq) of the last page
        self._landed: queue.Queue[list[tuple] | None] = queue.Queue()
        self._out: queue.Queue[Any] = queue.Queue(maxsize=_RESULTS)
        self._stopped = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> ParseAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def running(self) -> bool:
        """Whether pages are being parsed ahead (and may still be used)."""
        return self._state in ("running", "landed")

    def follow(self, page: raw.Landed | FetchFailure) -> bool:
        """One page as the landing stored it, or a fetch failure (one of another endpoint
        changes none of the current pages: a failed load lists none). Returns whether the
        next pages are still followed."""
        if self._state in ("waiting", "running"):
            self._take(page)
        return self._state in ("waiting", "running")

    def _take(self, page: raw.Landed | FetchFailure) -> None:
        if not isinstance(page, raw.Landed):
            if page.endpoint == self._connector.batched_endpoint:
                self._stop()  # its scope's current pages are its last good load's
            return
        if (
            not page.written  # stored before: its lineage is an earlier load's
            or page.endpoint != self._connector.batched_endpoint
            or (self._last is not None and (page.load_id, page.seq) <= self._last)
        ):
            self._stop()
            return
        if self._state == "waiting":
            self._start()
        number = raw.batch_of(self._bytes, self._batch_bytes)
        if self._batch and number != self._number:
            self._landed.put(self._batch)
            self._batch = []
        row = tuple(getattr(page, c) for c in self._columns)
        self._number = number
        self._batch.append(row)
        self._rows.append(row)
        self._bytes += page.payload_bytes
        self._last = (page.load_id, page.seq)

    def landed(self) -> None:
        """The landing has ended: its last batch is parsed too."""
        if self._state == "running":
            if self._batch:
                self._landed.put(self._batch)
                self._batch = []
            self._landed.put(None)
            self._state = "landed"

    def parsed(self, index: pl.DataFrame) -> Iterator[Normalised] | None:
        """The parsed batches, in order, when `index` (the provider's current pages, read
        from the ledger after the landing: `raw.current_index`) lists exactly the pages
        parsed; None otherwise (nothing parsed ahead, or other pages: what was parsed is
        dropped). A batch's failure is raised as its result is reached."""
        if self._state != "landed" or not self._same(index):
            self.close()
            return None
        return self._results()

    def close(self) -> None:
        """Stop parsing, drop what is parsed, and join the thread."""
        self._stop()
        while self._thread is not None and self._thread.is_alive():
            self._drain()
            self._thread.join(0.05)
        self._drain()

    def _same(self, index: pl.DataFrame) -> bool:
        import polars as pl

        big = pl.col("endpoint") == self._connector.batched_endpoint
        mine = pl.DataFrame(self._rows, schema=self._schema, orient="row")
        return (
            index.schema == self._schema
            and index.filter(~big).equals(self._rest)
            and index.filter(big).equals(mine)
        )

    def _start(self) -> None:
        """Read the provider's current pages before this landing (the ledger, on the
        landing's thread: the connection is idle while pages land) and start the parse."""
        import polars as pl

        connector = self._connector
        before = raw.current_index(self._con, connector.name, connector.endpoints)
        self._schema = before.schema
        self._columns = list(before.columns)
        self._rest = before.filter(pl.col("endpoint") != connector.batched_endpoint)
        self._state = "running"
        self._thread = threading.Thread(target=self._run, name="parse-ahead", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            rest = batches.other_pages(self._connector, self._rest, self._store)
            for result in batches.parse_batches(self._connector, rest, self._batches()):
                if not self._put(result):
                    return
            self._put(_END)
        except BaseException as exc:  # raised where the results are read (`_results`)
            self._put(_Failed(exc))

    def _batches(self) -> Iterator[pl.DataFrame]:
        """Each landed batch's index rows with their payloads, as the store gives them."""
        import polars as pl

        while (rows := self._landed.get()) is not None and not self._stopped.is_set():
            frame = pl.DataFrame(rows, schema=self._schema, orient="row")
            yield raw.with_payloads(frame, self._store)

    def _put(self, item: object) -> bool:
        """Hand `item` to the staging, waiting while `_RESULTS` wait; False once stopped."""
        while not self._stopped.is_set():
            try:
                self._out.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def _results(self) -> Iterator[Normalised]:
        while (item := self._out.get()) is not _END:
            if isinstance(item, _Failed):
                raise item.exc
            yield item

    def _stop(self) -> None:
        if self._state != "off":
            self._state = "off"
            self._stopped.set()
            self._landed.put(None)  # a batch source waiting for pages ends

    def _drain(self) -> None:
        while True:
            try:
                self._out.get_nowait()
            except queue.Empty:
                return
