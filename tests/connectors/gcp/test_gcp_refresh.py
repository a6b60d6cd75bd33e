"""GCP through the whole refresh (land -> parse from raw -> stage -> history -> marts), each
test on its own temporary DuckDB file, from the bundled demo snapshot."""

from __future__ import annotations

import copy

import pytest

from connectors.errors import SourceUnavailable
from connectors.gcp import settings
from connectors.kit.page import FetchContext, FetchFailure, Page
from flows import pipeline
from tests._warehouse import query, refresh


def demo_pages() -> list[Page]:
    return pipeline.fetch_pages("gcp", "demo", FetchContext())


def price(path, instance_type: str, region: str = "us-central1", model: str = "on_demand"):
    rows = query(
        path,
        """SELECT price_usd_per_hour FROM mart_gpu_offers_current
           WHERE provider = 'gcp' AND instance_type = $i AND region = $r AND pricing_model = $m""",
        {"i": instance_type, "r": region, "m": model},
    )
    assert rows.height == 1
    return rows.item()


def with_price(pages: list[Page], description: str, units: str, nanos: int) -> list[Page]:
    """The same pages with one SKU's price changed (a new catalog answer)."""
    changed = []
    for page in pages:
        body = copy.deepcopy(page.decoded())
        for sku in body["skus"]:
            if sku["description"] == description:
                money = sku["pricingInfo"][0]["pricingExpression"]["tieredRates"][0]["unitPrice"]
                money.update(units=units, nanos=nanos)
        changed.append(Page(page.provider, page.endpoint, page.fetched_at, page.request, body=body))
    return changed


# a3-highgpu-8g: 43.06615008 (GPUs + host) + its bundled 6000 GiB local SSD at the demo's
# 0.08 USD per GiB-month over 730 h
A3_HIGH_8G = 43.06615008 + 6000 * 0.08 / 730


def test_demo_refresh_publishes_a3_highgpu_8g_at_43_06615_plus_its_local_ssd(tmp_path):
    path = tmp_path / "w.duckdb"
    summary = refresh(path, {"gcp": demo_pages()})
    gcp = summary.providers[0]
    assert (gcp.status, gcp.fetched, gcp.rejected, gcp.excluded) == ("ok", 7, 1, 6)
    assert all(n == 0 for n in summary.assertions.values())
    assert price(path, "a3-highgpu-8g") == pytest.approx(A3_HIGH_8G, abs=1e-9)
    assert price(path, "a2-highgpu-1g", "us-east1") == pytest.approx(3.673385, abs=1e-12)
    assert price(path, "nvidia-h100-80gb") == 4.2007612
    quarantined = query(path, "SELECT reason, record FROM quarantine WHERE provider = 'gcp'")
    assert quarantined["reason"].to_list() == ["price 0.0 USD per h is not positive"]
    assert "Nvidia Tesla P4 GPU running in Singapore" in quarantined["record"][0]


def test_demo_covers_the_four_regions_and_every_pricing_model(tmp_path):
    path = tmp_path / "w.duckdb"
    refresh(path, {"gcp": demo_pages()})
    seen = query(
        path,
        """SELECT DISTINCT region, pricing_model FROM mart_gpu_offers_current
           WHERE provider = 'gcp' AND instance_type = 'a3-highgpu-8g'""",
    )
    regions = {"us-central1", "us-east4", "europe-west4", "asia-southeast1"}
    models = {"on_demand", "spot", "reserved_1y", "reserved_3y"}
    # DWS flex-start SKUs are in the demo for us-central1 only
    assert set(seen.iter_rows()) == {(r, m) for r in regions for m in models} | {
        ("us-central1", "flex")
    }
    gpus = query(
        path,
        """SELECT DISTINCT gpu_name, gpu_memory_gib FROM mart_gpu_offers_current
           WHERE provider = 'gcp'""",
    )
    assert set(gpus.iter_rows()) >= {
        ("A100", 40),
        ("A100", 80),
        ("H100", 80),
        ("H200", 141),
        ("L4", 24),
        ("T4", 16),
        ("V100", 16),
    }
    missing = query(
        path,
        """SELECT DISTINCT o.gpu_name, o.gpu_memory_gib FROM mart_gpu_offers_current o
           ANTI JOIN dim_gpus d USING (gpu_name, gpu_memory_gib) WHERE o.provider = 'gcp'""",
    )
    assert missing.is_empty()


def test_a_second_identical_refresh_adds_no_history(tmp_path):
    path = tmp_path / "w.duckdb"
    first = refresh(path, {"gcp": demo_pages()})
    second = refresh(path, {"gcp": demo_pages()})
    assert first.history["opened"] > 0
    assert second.history == {"opened": 0, "closed": 0}
    assert second.providers[0].unchanged == 7


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_host_price_change_reprices_the_machines_but_not_the_gpu(tmp_path):
    path = tmp_path / "w.duckdb"
    refresh(path, {"gcp": demo_pages()})
    # A3 core in us-central1 from 0.02152 to 0.02252: +208 x 0.001 on a3-highgpu-8g
    refresh(path, {"gcp": with_price(demo_pages(), "A3 Instance Core running in Americas", "0", 22520000)})
    assert price(path, "a3-highgpu-8g") == pytest.approx(A3_HIGH_8G + 0.208, abs=1e-9)
    assert price(path, "nvidia-h100-80gb") == 4.2007612
    versions = query(
        path,
        """SELECT price_usd_per_hour, valid_to IS NULL AS open FROM fct_gpu_prices
           WHERE provider = 'gcp' AND instance_type = 'a3-highgpu-8g'
             AND region = 'us-central1' AND pricing_model = 'on_demand'
           ORDER BY valid_from""",
    )
    assert versions["open"].to_list() == [False, True]
    assert versions["price_usd_per_hour"][0] == pytest.approx(A3_HIGH_8G, abs=1e-9)


def test_a_walk_that_fails_half_way_keeps_the_previous_catalog_current(tmp_path):
    path = tmp_path / "w.duckdb"
    refresh(path, {"gcp": demo_pages()})
    partial = with_price(demo_pages(), "Nvidia H100 80GB GPU running in Americas", "9", 0)[:2]
    failure = FetchFailure(
        "gcp", "skus", settings.SERVICE, SourceUnavailable("gcp", "skus", "HTTP 503")
    )
    summary = refresh(path, {"gcp": [*partial, failure]})
    assert summary.providers[0].status == "partial"
    assert price(path, "nvidia-h100-80gb") == 4.2007612  # the half-walked 9.0 is not current
    loads = query(path, "SELECT status FROM _loads WHERE provider = 'gcp' ORDER BY started_at")
    assert loads["status"].to_list() == ["ok", "failed"]


def test_accelerator_only_gpu_prices_never_win_the_cheapest_machine(tmp_path):
    """GCP prices a GPU apart from its host: those rows stay listed (host_included false)
    but the cheapest-machine mart only ranks composed machines (host_included true)."""
    from connectors.kit.page import FetchContext
    from flows import pipeline
    from warehouse import db

    path = tmp_path / "w.duckdb"
    pipeline.load_and_publish(
        path, {"gcp": pipeline.fetch_pages("gcp", "demo", FetchContext())}, source="t"
    )
    con = db.connect_readonly(path)
    try:
        # the B200 "(1 gpu slice)" SKU includes its host: priced per GPU but a machine
        flags = db.query(
            con,
            """SELECT instance_type LIKE 'nvidia-%' AND instance_type NOT LIKE '%b200%'
                                        AS per_gpu, host_included, count(*) AS n
                                 FROM mart_gpu_offers_current WHERE provider = 'gcp' GROUP BY ALL""",
        )
        winners = db.query(
            con, "SELECT instance_type FROM mart_cheapest_gpu_hour WHERE provider = 'gcp'"
        )
    finally:
        con.close()
    per_gpu = flags.filter(flags["per_gpu"])
    assert per_gpu.height and set(per_gpu["host_included"].to_list()) == {False}
    assert set(flags.filter(~flags["per_gpu"])["host_included"].to_list()) == {True}
    assert not any(
        t.startswith("nvidia-") and "b200" not in t for t in winners["instance_type"].to_list()
    )
