"""A credential never lands in data: a provider that answers 200 with the key it was
sent echoed inside a string field (a plan's name) stores, stages and publishes `***`
in its place; the raw page keeps only the masked copy. And `--debug`'s request log shows
URLs without their query strings."""

from __future__ import annotations

import json
import logging

from connectors.kit import snapshot as kit_snapshot
from connectors.kit.http import make_client
from connectors.kit.normalise import normalise
from connectors.kit.page import FetchContext, Page, pages_frame
from connectors.registry import PROVIDERS
from tests.conftest import FIXTURES

TOKEN = "EchoTestSeewebToken0123456789"


def test_a_key_echoed_in_a_200_body_is_masked_before_staging(httpserver, monkeypatch, tmp_path):
    monkeypatch.setenv("SEEWEB_API_TOKEN", TOKEN)
    monkeypatch.setattr("connectors.seeweb.settings.PLANS_URL", httpserver.url_for("/plans"))
    body = json.loads((FIXTURES / "seeweb" / "plans.json").read_text())
    body.pop("_source", None)

    def echo(request):
        doc = json.loads(json.dumps(body))
        doc["plans"][0]["name"] = f"plan-for-{request.headers['X-APITOKEN']}"
        return __import__("werkzeug").Response(json.dumps(doc), 200, content_type="application/json")  # fmt: skip

    httpserver.expect_request("/plans").respond_with_handler(echo)
    (page,) = [p for p in PROVIDERS["seeweb"].fetch_live(FetchContext()) if isinstance(p, Page)]
    assert httpserver.log  # the key was sent, and echoed
    assert TOKEN not in page.payload and TOKEN.encode() not in page.content
    assert "plan-for-***" in page.payload
    parsed = PROVIDERS["seeweb"].parse(pages_frame([page.compact()])).offers
    staged = normalise(parsed)
    dumped = " ".join(f.write_csv() for f in (staged.offers, staged.rejected, parsed.drop("_item")))
    assert TOKEN not in dumped
    kit_snapshot.write_pages(tmp_path / "snap", [page])
    assert all(TOKEN.encode() not in f.read_bytes() for f in (tmp_path / "snap").rglob("*") if f.is_file())  # fmt: skip


def test_the_request_log_shows_no_query_string(httpserver, caplog, monkeypatch):
    # a logging configuration loaded earlier in the same process (Prefect's) may have
    # disabled or detached the httpx logger: this test needs its records
    monkeypatch.setattr(logging.getLogger("httpx"), "disabled", False)
    monkeypatch.setattr(logging.getLogger("httpx"), "propagate", True)
    httpserver.expect_request("/prices").respond_with_json({})
    with caplog.at_level(logging.INFO, logger="httpx"), make_client() as client:
        client.get(httpserver.url_for("/prices"), params={"api_key": "QueryKey0123456789"})
    text = " ".join(r.getMessage() for r in caplog.records if r.name == "httpx")
    # the URL's query string is left out (or, where another logging set-up in the same
    # process replaced the filter, at least masked by the output redaction)
    assert "/prices" in text and "QueryKey0123456789" not in text
