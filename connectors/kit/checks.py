"""Checks shared by fetchers: credentials from the environment, and schema drift guards: cheap checks on the envelope and the first
item, so a renamed field fails the fetch loudly (UnexpectedResponse, with an excerpt)
instead of parsing into nulls. Individual bad records are parse's business (quarantine)."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import Any

from connectors.errors import MissingCredentials, UnexpectedResponse


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


def require_list(
    provider: str, endpoint: str, body: Any, item_keys: Iterable[str], *, what: str = "item"
) -> list:
    """`body` is a JSON array whose first item (if any) has every key of `item_keys`."""
    if not isinstance(body, list):
        raise UnexpectedResponse(
            provider, endpoint, "response is not a JSON array", excerpt=repr(body)
        )
    if body:
        first = body[0]
        missing = [k for k in item_keys if not isinstance(first, dict) or k not in first]
        if missing:
            raise UnexpectedResponse(
                provider,
                endpoint,
                f"{what} lacks required field(s) {missing}",
                excerpt=repr(first),
            )
    return body


def env_credential(
    provider: str, endpoint: str, names: str | tuple[str, ...], need: str = ""
) -> str:
    """The first of the environment variables `names` that is set (stripped), else
    MissingCredentials naming the first: the provider is skipped, not failed."""
    names = (names,) if isinstance(names, str) else names
    value = next((v for n in names if (v := os.environ.get(n, "").strip())), "")
    if not value:
        raise MissingCredentials(
            provider,
            endpoint,
            f"no credentials ({names[0]} is not set{'; ' + need if need else ''})",
        )
    return value
