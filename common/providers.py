"""The provider vocabulary: every name a price row's `provider` can carry, and the
connectors whose rows are about other providers (the price sheets).

Each connector registers here when it is built (`connectors.kit.connector.Connector`, as
it registers its credential variables with `common.redact`): its own name, and the
providers its rows are about when those are others (the `sheets` connector: coreweave,
paperspace ...). The registry (`connectors.registry`) builds every connector when it is
imported, so code that reads provider names imports it first; `known()` refuses to answer
before any connector is registered rather than call every provider unknown.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable

_lock = threading.Lock()
# connector name -> the providers its rows are about (empty: its own name)
_connectors: dict[str, tuple[str, ...]] = {}


def register(connector: str, emits: Iterable[str] = ()) -> None:
    """A connector exists, and its rows are about `emits` (empty: about itself)."""
    with _lock:
        _connectors[connector] = tuple(emits)


def connectors() -> tuple[str, ...]:
    """Every registered connector, in the order they registered."""
    return tuple(_registered())


def relays() -> dict[str, tuple[str, ...]]:
    """Connectors whose rows are about other providers (the price sheets): name -> those
    providers. Their own name is never a row's provider."""
    return {c: emits for c, emits in _registered().items() if emits and c not in emits}


def known(extra: Iterable[str] = ()) -> set[str]:
    """Every provider a price row can carry: the registered connectors, the providers
    their rows are about (price sheets: coreweave, paperspace ...), and any `extra` (a
    warehouse's own, e.g. from a sheet added since)."""
    registered = _registered()
    names = set(registered) - set(relays())
    for emits in registered.values():
        names.update(emits)
    return names | set(extra)


def _registered() -> dict[str, tuple[str, ...]]:
    with _lock:
        found = dict(_connectors)
    if not found:
        raise RuntimeError(
            "no connector is registered: import connectors.registry before reading provider names"
        )
    return found
