"""Warehouse errors. They sit outside connectors.errors.PricingError because warehouse/ may
not import connectors/; `connectors.errors` re-exports them so callers see one tree."""

from __future__ import annotations


class WarehouseError(Exception):
    """The warehouse could not be read, written, validated or published."""


class AssertionsFailed(WarehouseError):
    """A `sql/tests/assert_*.sql` check returned rows: nothing was published (exit 3)."""


class StorageFull(WarehouseError):
    """The disk filled during a refresh: nothing was published (exit 3), and the refresh's
    working copy was removed so it holds no space."""


def no_space(exc: BaseException) -> bool:
    """An error that says the device is full (an OSError, or DuckDB's own text for it)."""
    import errno

    if isinstance(exc, OSError) and exc.errno == errno.ENOSPC:
        return True
    return "No space left on device" in str(exc) or "ENOSPC" in str(exc)
