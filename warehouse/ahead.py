"""The small providers of a refresh parsed before any of them is staged, and normalised
in one call (connectors.kit.normalise.normalise_many): the shared rules cost ~25 ms a
call whatever the rows, so a refresh of many small providers paid them once per provider
(the demo's 18 non-batched providers: ~0.5 s one by one, ~0.06 s together).

A provider is parsed ahead when its parse reads its current pages whole and nothing from
the warehouse, and they are small: its pages changed (`staging.parsed_already`), it is
not a batched connector, it is not a series parse going on from its stored rows
(`staging.resumes_from`), and its pages hold at most SMALL_BYTES of payload, with at most
`batches.BATCH_BYTES` for all of them (what a batched parse holds at once). Each keeps
its own outcome: its parse, and its share of the one normalise, or the error its parse
raised, which `stage_provider` raises (`Ahead.result`, handed to it) in the provider's
own transaction as if it had parsed there. Rows located by `_at` (read back through
their own parse) are normalised alone, and so is every provider when the call over all
of them fails (each then fails, or not, on its own). The parses run PARSERS at a time.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from connectors import registry
from warehouse import raw
from warehouse.batches import BATCH_BYTES
from warehouse.rawstore import RawStore
from warehouse.staging import ParsedFrom, parse_current, parsed_already, resumes_from

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.connector import Parsed
    from connectors.kit.normalise import Normalised

T = TypeVar("T")

# a provider whose current pages hold more payload than this is parsed when it is staged
SMALL_BYTES = 4 << 20
# the parses run at once (each reads its pages and parses them on its own)
PARSERS = 2


@dataclass(frozen=True)
class Ahead:
    """A provider's parse and normalised offers, or the error its parse or its normalise
    raised (`result` raises it)."""

    parsed: Parsed | None = None
    normalised: Normalised | None = None
    error: BaseException | None = None
    seconds: float = 0.0  # its parse (and its normalise, when alone); not the shared one

    def result(self) -> tuple[Parsed, Normalised]:
        if self.error is not None:
            raise self.error
        assert self.parsed is not None and self.normalised is not None
        return self.parsed, self.normalised


def chosen(providers: dict[str, ParsedFrom]) -> dict[str, pl.DataFrame]:
    """The providers parsed ahead, each with its pages' index (raw.current_index), in the
    refresh's order: none unless two or more are (one alone gains nothing)."""
    picked: dict[str, pl.DataFrame] = {}
    total = 0
    for name, parsed in providers.items():
        connector = registry.get(name)
        if (
            parsed_already(parsed)
            or connector.batched_endpoint is not None
            or resumes_from(connector, parsed) is not None
        ):
            continue
        index = raw.current_index(parsed.pages)
        size = int(index.get_column("payload_bytes").sum() or 0)
        if size <= SMALL_BYTES and total + size <= BATCH_BYTES:
            picked[name] = index
            total += size
    return picked if len(picked) > 1 else {}


def _attempt(call: Callable[..., T], *args: Any) -> T | BaseException:
    """`call(*args)`, or what it raised but an interrupt: whether an error fails the
    provider (a Polars panic is no `Exception`) is decided where it is staged."""
    try:
        return call(*args)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:
        return exc


def parse_ahead(store: RawStore, providers: dict[str, ParsedFrom]) -> dict[str, Ahead]:
    """Parse the chosen providers (`chosen`) of `providers` and normalise them together."""
    picked = chosen(providers)
    if not picked:  # a refresh that parses nothing ahead does not load Polars for it
        return {}
    from connectors.kit.normalise import normalise_many

    seconds: dict[str, float] = {}

    def parse(name: str, index: pl.DataFrame) -> Parsed | BaseException:
        began = time.perf_counter()
        parsed = _attempt(parse_current, registry.get(name), index, store)
        seconds[name] = time.perf_counter() - began
        return parsed

    # PARSERS at a time: a parse's Polars steps release the GIL, and most of a small
    # provider's parse is many short ones
    with ThreadPoolExecutor(PARSERS) as pool:
        parses = dict(zip(picked, pool.map(parse, picked, picked.values()), strict=True))
    done = {n: p for n, p in parses.items() if not isinstance(p, BaseException)}
    stackable = {n: p.offers for n, p in done.items() if "_at" not in p.offers.columns}
    # when the call over all of them fails, each on its own below tells whose rows fail
    shares = _attempt(normalise_many, stackable) if len(stackable) > 1 else {}
    out: dict[str, Ahead] = {}
    for name, parsed in parses.items():
        if isinstance(parsed, BaseException):
            out[name] = Ahead(error=parsed, seconds=seconds[name])
            continue
        began = time.perf_counter()
        if isinstance(shares, dict) and name in shares:
            normalised = shares[name]
        else:
            normalised = _attempt(parsed.normalised)
        took = seconds[name] + time.perf_counter() - began
        out[name] = (
            Ahead(error=normalised, seconds=took)
            if isinstance(normalised, BaseException)
            else Ahead(parsed, normalised, seconds=took)
        )
    return out
