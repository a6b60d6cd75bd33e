"""Schema drift guards shared by fetchers: cheap checks on the envelope and the first
item, so a renamed field fails the fetch loudly (UnexpectedResponse, with an excerpt)
instead of parsing into nulls. Individual bad records are parse's business (quarantine)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from connectors.errors import UnexpectedResponse


def require_items(
    provider: str,
    endpoint: str,
    body: Any,
    list_key: str,
    item_keys: Iterable[str],
    *,
    where: str = "",
) -> list:
    """`body[list_key]` is a list whose first item (if any) has every key of `item_keys`."""
    prefix = f"{where}: " if where else ""
    if not isinstance(body, dict) or not isinstance(body.get(list_key), list):
        raise UnexpectedResponse(
            provider, endpoint, f"{prefix}response has no {list_key!r} list", excerpt=repr(body)
        )
    items = body[list_key]
    if items:
        first = items[0]
        missing = [k for k in item_keys if not isinstance(first, dict) or k not in first]
        if missing:
            raise UnexpectedResponse(
                provider,
                endpoint,
                f"{prefix}item lacks required field(s) {missing}",
                excerpt=repr(first),
            )
    return items
