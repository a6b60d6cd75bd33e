"""AWS public routes through httpx against a local server: the Spot Advisor feed and the
bulk offer CSV (version check before download, streamed, accelerated rows kept)."""

from __future__ import annotations

import csv
import io
import json
from datetime import datetime

import httpx
import pytest
from werkzeug import Response

from connectors.aws import fetch
from connectors.errors import UnexpectedResponse
from connectors.kit.http import RetryPolicy
from connectors.kit.page import FetchContext, FetchFailure, Page
from samples.aws import aws_offer_csv_rows, aws_offer_csv_text
from tests.connectors.aws.conftest import AWS_FIXTURES

FAST = RetryPolicy(attempts=3, backoff_s=0.001, max_backoff_s=0.001)
VERSION = "20261118170000"
INDEX = "/offers/v1.0/aws/AmazonEC2/current/region_index.json"


def region_index(*regions: str, version: str = VERSION) -> dict:
    return {
        "formatVersion": "v1.0",
        "publicationDate": "2026-11-18T17:00:00Z",
        "regions": {
            r: {
                "regionCode": r,
                "currentVersionUrl": f"/offers/v1.0/aws/AmazonEC2/{version}/{r}/index.json",
            }
            for r in regions
        },
    }


def csv_path(region: str, version: str = VERSION) -> str:
    return f"/offers/v1.0/aws/AmazonEC2/{version}/{region}/index.csv"


def offer_text() -> str:
    """A region file with GPU rows in and out of scope and non-GPU rows."""
    common = {"region": "us-east-1", "vcpus": 4, "memory_gib": 16}
    rows = aws_offer_csv_rows(instance_type="g5.xlarge", gpus=1, on_demand=1.006, **common)
    rows += aws_offer_csv_rows(
        instance_type="g5.xlarge", gpus=1, on_demand=1.2, operating_system="Windows", **common
    )
    rows += aws_offer_csv_rows(
        instance_type="m5.xlarge",
        gpus=None,
        on_demand=0.192,
        instance_family="General purpose",
        **common,
    )
    rows += aws_offer_csv_rows(
        instance_type="inf2.xlarge",
        gpus=None,
        on_demand=0.7582,
        instance_family="Machine Learning ASIC Instances",
        **common,
    )
    return aws_offer_csv_text(rows, version=VERSION, publication_date="2026-11-18T17:00:00Z")


def table(path) -> list[dict]:
    text = path.read_text()
    return list(csv.DictReader(io.StringIO(text.split("\n", 5)[5])))


def test_spot_advisor_page_is_the_feed_as_received(httpserver):
    body = json.loads((AWS_FIXTURES / "spot_advisor_data.json").read_text())
    httpserver.expect_request("/spot-advisor-data.json").respond_with_json(body)
    url = httpserver.url_for("/spot-advisor-data.json")
    with httpx.Client() as client:
        (page,) = fetch.fetch_spot_advisor(client, url=url, policy=FAST)
    assert page.body == body and page.scope == "" and page.source_url == url


def test_spot_advisor_without_ranges_is_an_unexpected_response(httpserver):
    httpserver.expect_request("/advisor.json").respond_with_json({"spot_advisor": {}})
    with httpx.Client() as client, pytest.raises(UnexpectedResponse, match="ranges"):
        list(fetch.fetch_spot_advisor(client, url=httpserver.url_for("/advisor.json"), policy=FAST))


def test_offer_csv_is_streamed_to_disk_and_its_accelerated_rows_kept(httpserver, tmp_path):
    text = offer_text()
    httpserver.expect_request(INDEX).respond_with_json(region_index("us-east-1"))
    httpserver.expect_request(csv_path("us-east-1")).respond_with_data(
        text, content_type="text/csv"
    )
    base = httpserver.url_for("").rstrip("/")
    with httpx.Client() as client:
        versions = fetch.offer_versions(client, base_url=base, policy=FAST)
        (page,) = fetch.fetch_offer_csv(
            client, versions["us-east-1"], directory=tmp_path, policy=FAST
        )
    assert page.request["source_version"] == VERSION
    assert page.request["publication_date"] == "2026-11-18T17:00:00Z"
    assert page.request["source_bytes"] == len(text.encode())
    assert page.scope == "us-east-1" and page.source_url.endswith(csv_path("us-east-1"))
    kept = page.path.read_text().splitlines()
    assert kept[:6] == text.splitlines()[:6]  # metadata lines and header, verbatim
    assert set(kept[6:]) <= set(text.splitlines()[6:])  # the kept rows too, byte for byte
    assert sorted(r["Instance Type"] for r in table(page.path)) == ["g5.xlarge", "inf2.xlarge"]
    assert page.request["rows_kept"] == 2
    assert list(tmp_path.glob("*.csv")) == [page.path]  # the full download is not kept


def test_offer_csv_of_a_version_already_stored_is_not_downloaded(httpserver, tmp_path):
    httpserver.expect_request(INDEX).respond_with_json(region_index("us-east-1", "eu-west-1"))
    httpserver.expect_request(csv_path("eu-west-1")).respond_with_data(offer_text())
    base = httpserver.url_for("").rstrip("/")
    ctx = FetchContext(
        watermarks={("offer_csv", "us-east-1"): datetime(2026, 11, 18, 17, 0)},
        settings={"aws_cache_dir": str(tmp_path)},
    )
    with httpx.Client() as client:
        items = list(
            fetch.fetch_public(
                ctx,
                ("us-east-1", "eu-west-1"),
                client,
                advisor_url=httpserver.url_for("/no-advisor"),
                offers_base_url=base,
                policy=FAST,
            )
        )
    csv_pages = [i for i in items if isinstance(i, Page) and i.endpoint == "offer_csv"]
    assert [p.scope for p in csv_pages] == ["eu-west-1"]
    requested = [r.path for r, _ in httpserver.log]
    assert csv_path("us-east-1") not in requested and csv_path("eu-west-1") in requested
    # the advisor URL and the savings plan index answer 500 here (not served): a failure
    # for each of those endpoints only
    failures = [i for i in items if isinstance(i, FetchFailure)]
    assert [f.endpoint for f in failures] == ["spot_advisor", "savings_plans"]


def test_offer_csv_download_is_retried_after_a_503(httpserver, tmp_path):
    httpserver.expect_ordered_request(csv_path("us-east-1")).respond_with_response(
        Response("busy", status=503)
    )
    httpserver.expect_ordered_request(csv_path("us-east-1")).respond_with_data(offer_text())
    offer = fetch.OfferVersion("us-east-1", VERSION, httpserver.url_for(csv_path("us-east-1")))
    with httpx.Client() as client:
        (page,) = fetch.fetch_offer_csv(client, offer, directory=tmp_path, policy=FAST)
    assert page.request["rows_kept"] == 2


def test_region_missing_from_the_index_is_a_failure_for_that_region_only(httpserver, tmp_path):
    httpserver.expect_request(INDEX).respond_with_json(region_index("us-east-1"))
    httpserver.expect_request(csv_path("us-east-1")).respond_with_data(offer_text())
    httpserver.expect_request("/advisor").respond_with_json(
        json.loads((AWS_FIXTURES / "spot_advisor_data.json").read_text())
    )
    # the savings plan route: its index lists us-east-1 only, like the offer index
    sp_path = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20261118170000/us-east-1/index.json"
    httpserver.expect_request(
        "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan/current/region_index.json"
    ).respond_with_json({"regions": [{"regionCode": "us-east-1", "versionUrl": sp_path}]})
    sp_file = json.loads((AWS_FIXTURES / "savings_plan_us_east_1.json").read_text())
    httpserver.expect_request(sp_path).respond_with_json(sp_file)
    ctx = FetchContext(settings={"aws_cache_dir": str(tmp_path)})
    with httpx.Client() as client:
        items = list(
            fetch.fetch_public(
                ctx,
                ("us-east-1", "ap-east-2"),
                client,
                advisor_url=httpserver.url_for("/advisor"),
                offers_base_url=httpserver.url_for("").rstrip("/"),
                policy=FAST,
            )
        )
    failures = [(i.endpoint, i.scope) for i in items if isinstance(i, FetchFailure)]
    assert failures == [("offer_csv", "ap-east-2"), ("savings_plans", "ap-east-2")]
    assert {(i.endpoint, i.scope) for i in items if isinstance(i, Page)} == {
        ("spot_advisor", ""),
        ("offer_csv", "us-east-1"),
        ("savings_plans", "us-east-1"),
    }


def test_filter_reads_columns_by_name_in_any_order(tmp_path):
    text = offer_text()
    lines = text.splitlines()
    rows = list(csv.reader(lines[5:]))
    order = list(reversed(range(len(rows[0]))))
    swapped = [",".join(f'"{r[i]}"' if r[i] else "" for i in order) for r in rows]
    src = tmp_path / "reordered.csv"
    src.write_text("\n".join(lines[:5] + swapped) + "\n")
    kept = fetch.filter_offer_csv(src, tmp_path / "kept.csv")
    assert kept == 2
    assert sorted(r["Instance Type"] for r in table(tmp_path / "kept.csv")) == [
        "g5.xlarge",
        "inf2.xlarge",
    ]


def test_file_without_version_lines_is_an_unexpected_response(tmp_path):
    src = tmp_path / "bad.csv"
    src.write_text('"SKU","OfferTermCode"\n"A","B"\n')
    with pytest.raises(UnexpectedResponse, match="Version"):
        fetch.read_offer_metadata(src)


def test_filter_still_keeps_the_right_rows_when_a_quoted_field_spans_lines(tmp_path, caplog):
    text = offer_text()
    lines = text.splitlines()
    # an m5 row (not kept) whose PriceDescription holds a newline: line numbers no longer
    # match row numbers, so the verbatim copy must notice and fall back
    m5 = next(i for i, line in enumerate(lines) if "m5.xlarge" in line)
    lines[m5] = lines[m5].replace("per On Demand", "per On\nDemand", 1)
    src = tmp_path / "multiline.csv"
    src.write_text("\n".join(lines) + "\n")
    kept = fetch.filter_offer_csv(src, tmp_path / "kept.csv")
    assert "do not line up" in caplog.text  # the fallback ran
    assert kept == 2
    assert sorted(r["Instance Type"] for r in table(tmp_path / "kept.csv")) == [
        "g5.xlarge",
        "inf2.xlarge",
    ]
