"""docs/providers.md's provider table is the registry's: one row per registered connector,
in its order, written by scripts/provider_table.py from each connector's `doc` and, for a
connector built from kit JSON endpoints, the credentials those endpoints declare."""

from __future__ import annotations

import dataclasses

import pytest

from connectors import registry
from connectors.kit.connector import ProviderDoc
from scripts import provider_table


def _rows(text: str) -> dict[str, list[str]]:
    body = text.split(provider_table.START, 1)[1].split(provider_table.END, 1)[0]
    rows = [line for line in body.strip().splitlines() if line.startswith("| `")]
    return {r.split("`")[1]: [c.strip() for c in r.strip("|").split(" | ")] for r in rows}


def test_the_table_in_docs_is_the_one_the_registry_writes():
    text = provider_table.DOC.read_text(encoding="utf-8")
    assert provider_table.written(text) == text, "run: uv run python scripts/provider_table.py"
    assert list(_rows(text)) == list(registry.PROVIDERS)
    assert provider_table.main(["--check"]) == 0


@pytest.mark.parametrize("name", sorted(registry.PROVIDERS))
def test_each_row_says_how_the_connector_reads_its_credentials(name):
    connector = registry.PROVIDERS[name]
    auth = provider_table.auth_cell(connector)
    if not connector.credentials:
        assert auth == "none", auth
    elif connector.json_endpoints:
        for variable in connector.credentials:  # derived: every variable it reads
            assert f"`{variable}`" in auth, (variable, auth)
    else:
        assert auth != "none", f"{name} reads credentials: its doc.auth says how"


def test_a_change_of_credential_changes_the_table(monkeypatch):
    """The auth column follows the declaration: a new variable appears without an edit."""
    ep = registry.PROVIDERS["seeweb"].json_endpoints[0]
    credential = dataclasses.replace(ep.credential, env=("SEEWEB_NEW_TOKEN",))
    moved = dataclasses.replace(
        registry.PROVIDERS["seeweb"], json_endpoints=(dataclasses.replace(ep, credential=credential),)
    )
    monkeypatch.setitem(registry.PROVIDERS, "seeweb", moved)
    text = provider_table.DOC.read_text(encoding="utf-8")
    assert "`SEEWEB_NEW_TOKEN` in the `X-APITOKEN` header" in _rows(provider_table.written(text))["seeweb"][2]
    assert provider_table.main(["--check"]) == 1


def test_a_connector_without_its_doc_stops_the_script(monkeypatch):
    bare = dataclasses.replace(registry.PROVIDERS["vultr"], doc=None)
    monkeypatch.setitem(registry.PROVIDERS, "vultr", bare)
    with pytest.raises(SystemExit, match="vultr"):
        provider_table.table()
    assert isinstance(registry.PROVIDERS["oci"].doc, ProviderDoc)
