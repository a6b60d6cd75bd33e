"""The connector contract: the shape every provider package exposes, so the CLI, the flows
and the tests iterate them, and nothing outside a provider's folder knows its columns.

A connector declares its endpoints, a live fetch, a pure parse from the pages frame
(`connectors.kit.page.PAGES_SCHEMA`) to one `Parsed` result, and the tables it stages
besides its offers (`StagedTable`: columns, constraints, and for a time series how its
rows accumulate across refreshes). `Connector.parse` checks the result against those
declarations, so a parser that drifts from them fails at the boundary, by name.

A connector names its parse (and the staged tables it declares) with `later`: the module
that holds them, and Polars with it, is imported when a page is parsed, not when the
connector is built; a refresh that finds every page unchanged never imports it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from common import providers
from common.errors import PricingError
from common.redact import register_env
from common.schemas import conform, table_ddl
from connectors.errors import UnexpectedResponse
from connectors.kit.page import FetchContext, FetchFailure, Page

if TYPE_CHECKING:
    import polars as pl

    from connectors.kit.normalise import Normalised

APPEND = "append"  # every page ever landed is part of the current state (time series)
SNAPSHOT = "snapshot"  # only the latest successful load of each scope is current

# Columns a parse may add to its offers besides the canonical ones: the raw record of a
# row, kept for quarantine (connectors.kit.normalise turns it into `record`), or where
# that record is (`_at`, read back by `Parsed.records`: connectors.kit.decode), and the
# source's own words for the GPU (common/gpu.py reads them where a map has no name)
OFFER_EXTRA_COLUMNS = ("_item", "_at", "gpu_text")


@dataclass(frozen=True)
class Series:
    """How a staged table accumulates a time series from an APPEND endpoint's pages. A
    refresh whose parsing code is unchanged parses only the pages landed since the last
    parse, adds their rows whose `key` is not staged yet, and hands `parse` the newest
    stored row of each series (by `time`) in place of the pages it did not re-read. The
    newest `time` stored per `scope` is where the next live fetch of that scope starts."""

    endpoint: str  # the APPEND endpoint whose pages hold the points
    key: tuple[str, ...]  # the columns that make a row unique
    series: tuple[str, ...]  # the columns of one series
    time: str  # when a point was observed
    scope: str  # the column that holds the fetch scope (a region) of a point


@dataclass(frozen=True)
class StagedTable:
    """A table a connector stages besides `stg_<provider>__offers`, declared once: its DDL
    is generated from these columns (common.schemas.table_ddl) and every parse's rows
    for it are checked against them."""

    name: str
    columns: pl.Schema
    not_null: frozenset[str] = frozenset()
    primary_key: tuple[str, ...] = ()
    series: Series | None = None

    def __post_init__(self) -> None:
        named = set(self.not_null) | set(self.primary_key)
        if self.series is not None:
            s = self.series
            named |= {*s.key, *s.series, s.time, s.scope}
        unknown = named - set(self.columns)
        if unknown:
            raise ValueError(f"{self.name}: declares unknown column(s) {sorted(unknown)}")

    @property
    def ddl(self) -> str:
        return table_ddl(self.name, self.columns, self.not_null, self.primary_key)

    def conform(self, rows: pl.DataFrame) -> pl.DataFrame:
        """`rows` with exactly the declared columns, in order, cast to the declared types;
        a missing or undeclared column raises."""
        missing = [c for c in self.columns if c not in rows.columns]
        extra = [c for c in rows.columns if c not in self.columns]
        if missing or extra:
            raise ContractError(
                f"{self.name}: parse returned rows without column(s) {missing} "
                f"and with undeclared column(s) {extra}"
            )
        import polars as pl

        return rows.select([pl.col(c).cast(t, strict=True) for c, t in self.columns.items()])


class ContractError(PricingError):
    """A parse result that does not match what its connector declares (a code error): the
    refresh fails that provider, which keeps its last good data, as for any parse error."""


@dataclass(frozen=True)
class Parsed:
    """What one parse of a provider's pages produces: the canonical offers and the rows of
    each declared staged table, by table name.

    `offers` is conformed when built: exactly common.schemas.OFFER_SCHEMA's columns in
    order (a column the parse left out is null; a value that does not cast to the declared
    type raises), plus `_item` where the parse kept it; a parse's own working columns are
    dropped here. Rejected and excluded rows carry their `status` and `reason`."""

    offers: pl.DataFrame
    staged: Mapping[str, pl.DataFrame] = field(default_factory=lambda: MappingProxyType({}))
    # the raw items of offers located by `_at` (a parse that decodes only the fields its
    # rules read): read back for the rejected ones only (connectors.kit.decode.item_records)
    records: Callable[[pl.Series], pl.Series] | None = None

    def normalised(self) -> Normalised:
        """The shared rules over these offers (connectors.kit.normalise), a rejected row's
        record read back by `records` where the offers are located."""
        from connectors.kit.normalise import normalise

        return normalise(self.offers, self.records)

    def __post_init__(self) -> None:
        from connectors.kit.normalise import parse_tail

        tail = parse_tail(self.offers)  # the defaults every parse leaves to the kit
        kept = [c for c in OFFER_EXTRA_COLUMNS if c in tail.columns]
        offers = conform(tail).with_columns(tail.select(kept).get_columns())
        object.__setattr__(self, "offers", offers)
        object.__setattr__(self, "staged", MappingProxyType(dict(self.staged)))


class Later:
    """An attribute of a module, imported when first used (`later`): called, it calls the
    attribute; as a connector's `staged`, it is the tuple of tables the attribute holds."""

    def __init__(self, module: str, name: str) -> None:
        self.module, self.name = module, name

    def resolve(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Later) and (other.module, other.name) == (self.module, self.name)

    def __hash__(self) -> int:
        return hash((self.module, self.name))

    def __repr__(self) -> str:
        return f"later({self.module!r}, {self.name!r})"


def later(module: str, name: str) -> Any:
    """`module.name`, imported when first used: a connector's parse function (`parse_pages`,
    or the function given to `offers_only` or `rest_connector`) or its staged tables
    (`staged`), so that building the connector imports neither its parse nor Polars."""
    return Later(module, name)


class _LaterTables(Later, Sequence):
    """A connector's staged tables named by `later`: imported, and checked against the
    connector (`Connector.check_staged`), on first use."""

    def __init__(self, ref: Later, check: Callable[[tuple[StagedTable, ...]], None]) -> None:
        super().__init__(ref.module, ref.name)
        self._check = check
        self._tables: tuple[StagedTable, ...] | None = None

    @property
    def tables(self) -> tuple[StagedTable, ...]:
        if self._tables is None:
            tables = tuple(self.resolve())
            self._check(tables)
            self._tables = tables
        return self._tables

    def __getitem__(self, index):  # type: ignore[override]
        return self.tables[index]

    def __len__(self) -> int:
        return len(self.tables)

    def __iter__(self) -> Iterator[StagedTable]:
        return iter(self.tables)


# the connector's own parse: (pages frame, the newest stored row of each series of its
# Series tables, by table name; empty on a full parse) -> Parsed
ParseFn = Callable[["pl.DataFrame", Mapping[str, "pl.DataFrame"]], Parsed]


def offers_only(parse_offers: Callable[[pl.DataFrame], pl.DataFrame]) -> ParseFn:
    """The parse of a connector that stages nothing but its offers."""

    def parse(pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame]) -> Parsed:
        return Parsed(parse_offers(pages))

    parse.__doc__ = parse_offers.__doc__
    parse.__wrapped__ = parse_offers  # type: ignore[attr-defined]
    return parse


@dataclass(frozen=True)
class ProviderDoc:
    """A connector's row in docs/providers.md's provider table (written from the registry
    by scripts/provider_table.py): its source and what it gives, in words; `auth` for a
    connector whose credentials are not its kit JSON endpoints' (an SDK's chain, or none),
    which the table otherwise derives from those endpoints' declarations."""

    source: str
    gives: str
    auth: str = ""


@dataclass(frozen=True)
class Connector:
    name: str
    # endpoint -> SNAPSHOT | APPEND
    endpoints: dict[str, str]
    # live fetch: builds its clients from the standard credential chains
    fetch_live: Callable[[FetchContext], Iterator[Page | FetchFailure]]
    # pure: no clock, no network, no DuckDB (call it through `Connector.parse`)
    parse_pages: ParseFn
    # the tables it stages besides its offers (a tuple, or `later` naming where it is)
    staged: Sequence[StagedTable] = ()
    # providers a connector's rows may carry (sheets publish rows for coreweave, ...)
    emits_providers: tuple[str, ...] = ()
    # an endpoint whose pages parse independently of each other: the pipeline then parses
    # them in batches of about BATCH_BYTES of payload (each batch together with every page
    # of the other endpoints), so memory stays bounded however large the crawl; only for a
    # connector that stages nothing but offers (a staged table needs every page at once)
    batched_endpoint: str | None = None
    # the environment variables its credentials are read from: every value is masked in
    # every outward text and in data (common.redact) once the connector exists
    credentials: tuple[str, ...] = ()
    # its declared JSON endpoints (connectors.kit.rest.JsonEndpoint), when it is built from
    # them: tests point them at local servers through `FetchContext.settings`
    json_endpoints: tuple[Any, ...] = ()
    # the strptime format of the source versions its pages record (request key
    # `source_version`, kept in `_loads`) when a version is the source's publication time:
    # the next live fetch then starts from the newest version stored
    source_version_format: str | None = None
    # its row in docs/providers.md (ProviderDoc)
    doc: ProviderDoc | None = None

    def __post_init__(self) -> None:
        register_env(*self.credentials)
        if isinstance(self.staged, Later):  # checked when first used
            object.__setattr__(self, "staged", _LaterTables(self.staged, self.check_staged))
        else:
            self.check_staged(tuple(self.staged))
        if self.batched_endpoint is not None and self.batched_endpoint not in self.endpoints:
            raise ValueError(f"{self.name}: cannot parse {self.batched_endpoint!r} in batches")
        # a built connector is a provider name every command reads (common.providers)
        providers.register(self.name, self.emits_providers)

    def check_staged(self, staged: tuple[StagedTable, ...]) -> None:
        """Its staged tables as declared: named `stg_<name>__*` once each, each series of
        one of its APPEND endpoints, none with a batched parse."""
        names = [t.name for t in staged]
        if len(set(names)) != len(names) or self.staging_table in names:
            raise ValueError(f"{self.name}: staged table names repeat: {names}")
        foreign = [n for n in names if not n.startswith(f"stg_{self.name}__")]
        if foreign:
            raise ValueError(
                f"{self.name}: staged tables must be named stg_{self.name}__*: {foreign}"
            )
        for t in staged:
            series = t.series
            if series is not None and self.endpoints.get(series.endpoint) != APPEND:
                raise ValueError(
                    f"{self.name}: {t.name} accumulates {series.endpoint!r}, "
                    "which is not one of its APPEND endpoints"
                )
        if staged and self.batched_endpoint is not None:
            raise ValueError(f"{self.name}: cannot parse {self.batched_endpoint!r} in batches")

    @property
    def staging_table(self) -> str:
        return f"stg_{self.name}__offers"

    @property
    def series_tables(self) -> tuple[tuple[StagedTable, Series], ...]:
        """The staged tables that accumulate a time series, each with its `Series`."""
        return tuple((t, t.series) for t in self.staged if t.series is not None)

    def _unparsed(
        self, pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame], exc: Exception
    ) -> UnexpectedResponse:
        """The error of a parse that Polars could not run over `pages` (most often a value
        of another JSON type than the page's declared shape: "n/a" where a number goes),
        naming the page: the first that fails by itself, found by halving the pages and
        parsing each half again (in this error's path only: at most about twice the
        parse). Polars' own first line names the value."""
        import polars as pl

        def fails(part: pl.DataFrame) -> bool:
            try:
                self.parse_pages(part, latest)
            except pl.exceptions.PolarsError:
                return True
            except Exception:  # another failure does not say which page
                return False
            return False

        part = pages
        while part.height > 1:
            half = part.height // 2
            first, second = part.slice(0, half), part.slice(half)
            if fails(first):
                part = first
            elif fails(second):
                part = second
            else:  # only some pages together fail: none of them alone
                break
        why = f"{type(exc).__name__}: {(str(exc).strip().splitlines() or [''])[0]}"
        if part.height != 1:
            return UnexpectedResponse(self.name, "*", f"{part.height} pages do not parse: {why}")
        page = part.row(0, named=True)
        where = page["source_url"] or page["request"] or "?"
        return UnexpectedResponse(
            self.name,
            page["endpoint"],
            f"the page {where[:200]} (load {page['load_id']}, fetched "
            f"{page['fetched_at']:%Y-%m-%d %H:%M:%S}) does not parse: {why}",
        )

    def parse(
        self, pages: pl.DataFrame, latest: Mapping[str, pl.DataFrame] | None = None
    ) -> Parsed:
        """Parse a pages frame (exactly `PAGES_SCHEMA`: build it with `pages_frame`) into
        the declared result: every staged table's rows, conformed to its columns."""
        from connectors.kit.page import PAGES_SCHEMA

        if pages.schema != PAGES_SCHEMA:
            raise ContractError(
                f"{self.name}: parse takes a pages frame {dict(PAGES_SCHEMA)}, "
                f"got {dict(pages.schema)} (build it with connectors.kit.page.pages_frame)"
            )
        import polars as pl

        stored = MappingProxyType(dict(latest or {}))
        try:
            result = self.parse_pages(pages, stored)
        except pl.exceptions.PolarsError as exc:
            raise self._unparsed(pages, stored, exc) from exc
        if not isinstance(result, Parsed):
            raise ContractError(f"{self.name}: parse returned {type(result).__name__}, not Parsed")
        declared = {t.name: t for t in self.staged}
        if set(result.staged) != set(declared):
            raise ContractError(
                f"{self.name}: parse returned rows for {sorted(result.staged)}, "
                f"declared {sorted(declared)}"
            )
        return Parsed(
            result.offers,
            {name: declared[name].conform(rows) for name, rows in result.staged.items()},
            result.records,
        )
