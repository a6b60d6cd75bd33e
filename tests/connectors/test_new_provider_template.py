"""Adding a provider is its folder: a connector written from a template (its
`__init__.py`, `fetch.py` declaring one kit JSON endpoint, `parse.py`) in a folder of
its own, found on `connectors.__path__`, is registered, has its credential masked, is
fetched live (pages recorded as a snapshot), and is refreshed into the published marts,
with no file outside its folder edited.

What a provider still adds outside its folder, by choice rather than need: its demo
snapshot pages (connectors/demo_snapshot/<provider>/, for the demo warehouse) and its test
fixtures. Its row in docs/providers.md is written from its `doc` by
scripts/provider_table.py (nothing edited by hand)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import connectors
from common import names, redact
from connectors import registry
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchContext, Page
from tests._warehouse import query, refresh

TEMPLATE = Path(__file__).parent / "template"
KEY = "TemplateCloudKey0123456789"


@pytest.fixture
def templatecloud(tmp_path, monkeypatch):
    """The template's files as `connectors/templatecloud/`, in a folder of their own."""
    root = tmp_path / "extra_connectors"
    folder = root / "templatecloud"
    folder.mkdir(parents=True)
    (folder / "__init__.py").write_text((TEMPLATE / "connector_init.py.txt").read_text())
    for name in ("fetch", "parse"):
        (folder / f"{name}.py").write_text((TEMPLATE / f"{name}.py.txt").read_text())
    monkeypatch.setattr(connectors, "__path__", [*connectors.__path__, str(root)])
    found = registry.discover()
    monkeypatch.setattr(registry, "PROVIDERS", found)
    yield found["templatecloud"]
    import sys

    for module in [m for m in sys.modules if m.startswith("connectors.templatecloud")]:
        del sys.modules[module]


def test_a_provider_from_the_template_documents_itself_and_leaves_the_tail_to_the_kit(
    templatecloud, pages_frame
):
    """Its row in the provider table comes from its folder (source and gives from its
    `doc`, auth from its endpoint's credential); its parse states no currency, zone or
    status, and the kit gives them."""
    from scripts import provider_table

    (row,) = [r for r in provider_table.table().splitlines() if r.startswith("| `templatecloud`")]
    assert row == (
        "| `templatecloud` | `/v1/prices` | `TEMPLATECLOUD_API_KEY` in the `X-Api-Key` header "
        "| on-demand per GPU and region |"
    )
    body = {"prices": [{"gpu": "H100", "count": "8", "region": "us-1", "usd_per_hour": "x"},
                       {"gpu": "A100", "count": "1", "region": "eu-1", "usd_per_hour": "1.10"}]}  # fmt: skip
    offers = templatecloud.parse(pages_frame("prices", body)).offers
    assert offers.select("status", "reason", "source_currency", "zone").rows() == [
        ("rejected", "usd_per_hour x is not a number", "USD", None),
        ("ok", None, "USD", None),
    ]


@pytest.mark.slow
def test_a_provider_from_the_template_needs_nothing_outside_its_folder(
    templatecloud, httpserver, monkeypatch, tmp_path
):
    assert list(registry.PROVIDERS)[:19] == list(registry.ORDER)  # the others unchanged
    assert "TEMPLATECLOUD_API_KEY" in redact.env_names()
    monkeypatch.setenv("TEMPLATECLOUD_API_KEY", KEY)
    assert redact.redact(f"echo {KEY}") == "echo ***"
    assert names.provider("TemplateCloud") == "templatecloud"  # a name every command reads

    body = {"prices": [{"gpu": "H100", "count": "8", "region": "us-1", "usd_per_hour": "20.00"},
                       {"gpu": "A100", "count": "1", "region": "eu-1", "usd_per_hour": "1.10"}]}  # fmt: skip
    httpserver.expect_request("/v1/prices", headers={"X-Api-Key": KEY}).respond_with_json(body)
    ctx = FetchContext(settings={"templatecloud_url": httpserver.url_for("/v1/prices")})
    pages = list(templatecloud.fetch_live(ctx))
    assert [type(p) for p in pages] == [Page]
    kit_snapshot.write_pages(tmp_path / "snap", pages)
    replayed = list(kit_snapshot.read_provider(tmp_path / "snap", "templatecloud"))
    assert json.loads(replayed[0].payload) == body

    warehouse = tmp_path / "w.duckdb"
    summary = refresh(warehouse, {"templatecloud": replayed})
    assert summary.exit_code == 0, summary
    offers = query(
        warehouse,
        "SELECT gpu_name, gpu_count, region, price_usd_per_gpu_hour FROM mart_gpu_offers_current "
        "WHERE provider = 'templatecloud' ORDER BY gpu_name",
    )
    assert offers.rows() == [("A100", 1.0, "eu-1", 1.1), ("H100", 8.0, "us-1", 2.5)]
