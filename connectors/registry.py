"""The one dict of connectors (name -> the code that reads one source) that the CLI, the
flows and the tests iterate. A connector is named after the provider it reads, except
`sheets`, which reads the price sheets of several providers.

A connector is found, not listed: every package under `connectors/` (other than the kit)
that defines `CONNECTOR` is one, so adding a provider is adding its folder. `ORDER` keeps
the order in which the first providers were added (command output and refreshes follow
it); any other is appended in name order.
"""

from __future__ import annotations

import importlib
import pkgutil

import connectors
from connectors.kit.connector import Connector

ORDER = (
    "azure", "aws", "gcp", "lambdalabs", "runpod", "vastai", "oci", "sheets", "hyperstack",
    "verda", "digitalocean", "vultr", "cloudrift", "jarvislabs", "hotaisle", "crusoe",
    "fluidstack", "seeweb", "nebius",
)  # fmt: skip
NOT_CONNECTORS = {"kit", "demo_snapshot"}


def discover() -> dict[str, Connector]:
    """Every connector package on `connectors.__path__`, by connector name, in ORDER."""
    found: dict[str, Connector] = {}
    for module in pkgutil.iter_modules(connectors.__path__):
        if not module.ispkg or module.name in NOT_CONNECTORS or module.name.startswith("_"):
            continue
        connector = getattr(importlib.import_module(f"connectors.{module.name}"), "CONNECTOR", None)
        if isinstance(connector, Connector):
            found[connector.name] = connector
    rank = {name: n for n, name in enumerate(ORDER)}
    return dict(sorted(found.items(), key=lambda kv: (rank.get(kv[0], len(ORDER)), kv[0])))


PROVIDERS: dict[str, Connector] = discover()


def get(name: str) -> Connector:
    from common.errors import InvalidInput

    try:
        return PROVIDERS[name]
    except KeyError:
        raise InvalidInput(
            f"unknown connector {name!r}; known: {', '.join(sorted(PROVIDERS))}"
        ) from None
