"""`Page`: one recorded API response (or one downloaded file), the unit that flows from
`fetch()` into the raw store and from the raw store back into `parse()`, and the pages
frame (`PAGES_SCHEMA`, built by `pages_frame`) in which `parse()` receives them.

The body is kept exactly as received. `sha256` covers the request and the body bytes (not
the fetch time), so a page that comes back unchanged is recognised and not stored twice.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from common.redact import credential_values, mask_credentials
from common.schemas import canonical_json as canonical_json  # a request's one text
from common.schemas import page_sha256
from common.schemas import utc_now as utc_now  # naive UTC, the one clock of fetch times

if TYPE_CHECKING:
    import polars as pl

# Request keys that say which slice of a provider a page belongs to. A load covers one
# (provider, endpoint, scope); the current state of an endpoint is the latest successful
# load of each of its scopes, so a region that fails tonight keeps yesterday's pages.
SCOPE_KEYS = ("region", "sheet", "scope")


def dumps(value: Any) -> str:
    """Compact JSON text, the stored form of a body (orjson: ~10x the stdlib's speed,
    which matters at a million items; `OPT_NON_STR_KEYS` for dict keys that are not str)."""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


def scope_of(request: dict[str, Any]) -> str:
    """The scope a page's request names (the first of SCOPE_KEYS it sets), "" for none."""
    for key in SCOPE_KEYS:
        if request.get(key):
            return str(request[key])
    return ""


@dataclass(frozen=True)
class Page:
    """One response. `data` is the body's bytes as read (a snapshot file's body, byte for
    byte); `body` is the decoded JSON; `text` its compact JSON text; `path` a downloaded
    file. A page built from any of them works the same; the stored form is `content`:
    the bytes as read when there are any, else the compact JSON text. Keeping only bytes
    or text halves the memory a million-item refresh needs (Python dicts cost ~3x their
    JSON)."""

    provider: str
    endpoint: str
    fetched_at: datetime  # naive UTC
    request: dict[str, Any]
    body: Any = None  # the decoded JSON body, exactly as returned
    path: Path | None = None  # a file endpoint (CSV): the bytes live here, body is None
    source_url: str | None = None
    text: str | None = None  # the body as JSON text, when the decoded form is not kept
    data: bytes | None = None  # the body's bytes as read (JSON), never re-serialised
    # a recorded page's statement of where its prices come from (connectors/kit/provenance.py);
    # None for a live page: its prices are the provider's own
    provenance: dict[str, Any] | None = None
    _sha: list[str] = field(default_factory=list, repr=False, compare=False)

    @property
    def scope(self) -> str:
        return scope_of(self.request)

    @property
    def payload(self) -> str:
        """The stored form of the body as text: JSON text, or the file's text, with every
        credential value the process holds masked (`mask_credentials`: a provider that
        echoes a key in a 200 body lands `***` in the raw store, staging and marts)."""
        if self.data is not None:
            return mask_credentials(self.data.decode("utf-8"))
        if self.text is not None:
            return mask_credentials(self.text)
        if self.path is not None:
            return self.path.read_text(encoding="utf-8")
        return mask_credentials(dumps(self.body))

    @property
    def content(self) -> bytes:
        """The stored form of the body as bytes: as read (unless it holds a credential
        value, which is masked), else the compact JSON text."""
        return self.stored_bytes(credential_values())

    def stored_bytes(self, credentials: frozenset[str]) -> bytes:
        """`content`, given `credential_values()`: a landing reads those once for all its
        pages (each read walks the environment: ~0.2 s CPU per 1,000 pages)."""
        if self.data is not None:
            if not credentials:  # nothing to mask: the bytes as read, not decoded
                return self.data
            text = self.data.decode("utf-8", errors="replace")
            masked = mask_credentials(text)
            return self.data if masked is text else masked.encode()
        if self.path is not None:
            return self.path.read_bytes()
        return self.payload.encode()

    @property
    def format(self) -> str:
        """How the stored bytes are written back to a snapshot: 'json', or a file's suffix."""
        if self.path is None:
            return "json"
        return self.path.suffix.lstrip(".") or "file"

    def decoded(self) -> Any:
        if self.body is not None:
            return self.body
        if self.data is not None:
            return orjson.loads(self.data)
        return None if self.text is None else orjson.loads(self.text)

    def compact(self) -> Page:
        """The same page holding only its JSON text (and its sha256, computed once)."""
        if self.path is not None or self.text is not None or self.data is not None:
            return self
        # the text once; its sha256 is computed from it when first asked for
        return Page(
            self.provider,
            self.endpoint,
            self.fetched_at,
            self.request,
            source_url=self.source_url,
            text=self.payload,
            provenance=self.provenance,
        )

    def stored_as(self, sha256: str) -> None:
        """Remember the sha256 the landing computed over the bytes it stored (what
        `sha256` names the page by), so it is not computed again."""
        if not self._sha:
            self._sha.append(sha256)

    @property
    def sha_cell(self) -> list[str]:
        """The cell `sha256` and `stored_as` fill (empty until the page is named): kept
        instead of the page, it gives the name later without holding the page's bytes."""
        return self._sha

    @property
    def sha256(self) -> str:
        """Over the request and the body bytes as stored (not the fetch time): hashed as
        read, never decoded and re-encoded for it."""
        if not self._sha:
            request = canonical_json(self.request)
            if self.path is None:
                self._sha.append(page_sha256(request, self.content))
            else:
                with self.path.open("rb") as fh:
                    chunks = iter(lambda: fh.read(1 << 20), b"")
                    self._sha.append(page_sha256(request, chunks))
        return self._sha[0]


# The pages frame `parse()` receives: one row per stored page of the provider's current
# state. `load_id` is the load that first stored the page (its lineage), `scope` the load's
# scope (region, sheet ...), `request` the request as canonical JSON text, and `payload` the
# body as text exactly as stored (JSON text, or a downloaded file's text).
# (`PAGES_SCHEMA` is built on first use, with Polars: a landing needs neither)
@cache
def _pages_schema() -> pl.Schema:
    import polars as pl

    return pl.Schema(
        {
            "endpoint": pl.String(),
            "load_id": pl.String(),
            "fetched_at": pl.Datetime("us"),  # naive UTC
            "scope": pl.String(),
            "source_url": pl.String(),
            "request": pl.String(),
            "payload": pl.String(),
        }
    )


def __getattr__(name: str) -> Any:
    if name == "PAGES_SCHEMA":
        return _pages_schema()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def pages_frame(
    pages: Iterable[Page] | pl.DataFrame, *, load_ids: Sequence[str] | None = None
) -> pl.DataFrame:
    """The pages frame (`PAGES_SCHEMA`, its columns in that order), the one way it is built:
    from `Page`s (a test, a benchmark, a replayed snapshot; `load_ids` default to
    `load-0`, `load-1` ... one per page), or from a frame that holds its columns and maybe
    more (the ledger's current pages with their payloads read from the raw store: the
    extra columns are dropped). A missing column or a value of another type raises."""
    import polars as pl

    schema = _pages_schema()
    if isinstance(pages, pl.DataFrame):
        missing = [c for c in schema if c not in pages.columns]
        if missing:
            raise ValueError(f"a pages frame needs the column(s) {missing}")
        return pages.select([pl.col(c).cast(t, strict=True) for c, t in schema.items()])
    pages = list(pages)
    ids = list(load_ids) if load_ids is not None else [f"load-{i}" for i in range(len(pages))]
    if len(ids) != len(pages):
        raise ValueError(f"{len(pages)} pages but {len(ids)} load ids")
    return pl.DataFrame(
        {
            "endpoint": [p.endpoint for p in pages],
            "load_id": ids,
            "fetched_at": [p.fetched_at for p in pages],
            "scope": [p.scope for p in pages],
            "source_url": [p.source_url for p in pages],
            "request": [canonical_json(p.request) for p in pages],
            "payload": [p.payload for p in pages],
        },
        schema=schema,
    )


@dataclass(frozen=True)
class FetchFailure:
    """A scope (region, sheet ...) whose fetch failed: recorded in `_loads`, others go on."""

    provider: str
    endpoint: str
    scope: str
    error: Exception

    def __post_init__(self) -> None:
        # The error's text is what `_loads.error`, the run summary and the CLI show: an
        # error that is not ours (its text unredacted) is replaced by its redacted text.
        from common.errors import PricingError
        from common.redact import redact

        if not isinstance(self.error, PricingError):
            # one line, cut: an SDK's message may carry a whole response body
            text = " ".join(redact(f"{type(self.error).__name__}: {self.error}").split())
            cut = text if len(text) <= 300 else text[:300] + " ..."
            object.__setattr__(self, "error", PricingError(cut))

    @property
    def skipped(self) -> bool:
        """No credentials: the scope is skipped, said once, not a failure."""
        from connectors.errors import MissingCredentials

        return isinstance(self.error, MissingCredentials)


@dataclass(frozen=True)
class FetchContext:
    """What a live fetch may know about the warehouse: incremental watermarks and config."""

    # (endpoint, scope) -> newest timestamp already stored, for incremental endpoints.
    watermarks: dict[tuple[str, str], datetime] = field(default_factory=dict)
    regions: tuple[str, ...] | None = None
    settings: dict[str, Any] = field(default_factory=dict)


def per_scope(
    provider: str,
    endpoint: str,
    scopes: Any,
    fetch_one: Any,
) -> Any:
    """Run `fetch_one(scope)` (an iterator of pages) for every scope; a scope that raises
    yields a FetchFailure instead and the next scope still runs."""
    from common.errors import PricingError

    for scope in scopes:
        try:
            yield from fetch_one(scope)
        except PricingError as exc:
            yield FetchFailure(provider, endpoint, str(scope), exc)
