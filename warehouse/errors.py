"""Warehouse errors. `connectors.errors.WarehouseError` is this same class, so the whole
tree hangs under PricingError without the warehouse importing connectors."""

from __future__ import annotations


class WarehouseError(Exception):
    """The warehouse could not be read, written, validated or published."""
