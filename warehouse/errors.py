"""Warehouse errors. They sit outside connectors.errors.PricingError because warehouse/ may
not import connectors/; `connectors.errors` re-exports them so callers see one tree."""

from __future__ import annotations


class WarehouseError(Exception):
    """The warehouse could not be read, written, validated or published."""


class AssertionsFailed(WarehouseError):
    """A `sql/tests/assert_*.sql` check returned rows: nothing was published (exit 3)."""
