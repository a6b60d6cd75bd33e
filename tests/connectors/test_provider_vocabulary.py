"""The provider names every command and the config file read (common.providers, parsed by
common.names) are the registry's: each connector registers its own name and the providers
its rows are about when it is built, so the bottom package knows them without importing
the connectors."""

from __future__ import annotations

import pytest

from common import names, providers
from common.errors import InvalidInput
from connectors import registry


def test_every_registered_connector_is_in_the_vocabulary():
    assert set(registry.PROVIDERS) <= set(providers.connectors())
    relays = {c.name: c.emits_providers for c in registry.PROVIDERS.values()
              if c.emits_providers and c.name not in c.emits_providers}  # fmt: skip
    assert relays and relays.items() <= providers.relays().items()
    expected = set(registry.PROVIDERS) - set(relays)
    for connector in registry.PROVIDERS.values():
        expected.update(connector.emits_providers)
    assert expected <= providers.known()
    assert not set(relays) & providers.known()  # a price sheet's connector is no provider
    assert providers.known(["newsheet"]) >= {"newsheet", "aws", "coreweave"}


def test_names_read_providers_from_the_vocabulary():
    assert names.provider("AWS") == "aws"
    assert names.provider(" CoreWeave ") == "coreweave"
    with pytest.raises(InvalidInput, match="rows are about other providers; name those"):
        names.provider("sheets")
    with pytest.raises(InvalidInput, match="unknown provider"):
        names.provider("amazon")


def test_no_vocabulary_before_any_connector_is_built(monkeypatch):
    """Code that reads provider names loads the registry first; a caller that forgets is
    told so, rather than every provider being called unknown."""
    monkeypatch.setattr(providers, "_connectors", {})
    with pytest.raises(RuntimeError, match=r"import connectors\.registry"):
        names.provider("aws")
