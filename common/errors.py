"""The exception tree of gpu-pricing, shared by every layer.

- `PricingError`: the root of everything gpu-pricing raises on purpose; its text arguments
  are redacted when it is built (common.redact), so a message never carries a credential.
  The connectors' failures (`connectors.errors.ConnectorError`: missing credentials, a
  source unavailable, an unexpected response) derive from it;
- `InvalidInput`: bad user input (a snapshot, a flag, a config value, a name given to the
  Python API), exit code 2, and a ValueError too;
- `WarehouseError`: the warehouse could not be read, written, validated or published;
  `AssertionsFailed` and `StorageFull` (nothing was published, exit 3) are its kinds. It
  derives from Exception, not from PricingError.
"""

from __future__ import annotations

from common.redact import redact


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


class PricingError(Exception):
    """Root of everything gpu-pricing raises on purpose. Its text arguments are redacted."""

    def __init__(self, *args: object) -> None:
        super().__init__(*(redact(a) if isinstance(a, str) else a for a in args))


class InvalidInput(PricingError, ValueError):
    """Bad user input (a snapshot, a flag, a config value, a name given to the Python API):
    exit code 2. A ValueError too, as the API promises for bad input."""
