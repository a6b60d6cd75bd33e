"""A real S3-compatible object store for publish tests (moto's standalone server on
loopback), and warehouses that change between two nights."""

from __future__ import annotations

import json
import logging
import uuid
from pathlib import Path

import pytest

from tests._processes import free_port
from tests._warehouse import copy_warehouse

DEMO = Path(__file__).resolve().parents[3] / "connectors" / "demo_snapshot"


@pytest.fixture(scope="module")
def s3_endpoint():
    """moto's server on 127.0.0.1 with fake credentials from the environment: the code
    under test finds them through the standard chains, as it would on a worker."""
    from moto.server import ThreadedMotoServer

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # one line per request otherwise
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("AWS_ACCESS_KEY_ID", "testing-key-id")
        mp.setenv("AWS_SECRET_ACCESS_KEY", "testing-secret-key")
        mp.setenv("AWS_REGION", "us-east-1")
        mp.setenv("AWS_ENDPOINT_URL", endpoint)
        mp.delenv("AWS_PROFILE", raising=False)
        # Polars plans Iceberg scans with pyiceberg (its own planner is a separate package)
        mp.setenv("POLARS_ICEBERG_PLANNER", "pyiceberg")
        yield endpoint
    server.stop()


@pytest.fixture
def s3(s3_endpoint):
    import boto3

    return boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")


@pytest.fixture
def bucket(s3) -> str:
    name = f"team-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=name)
    return name


@pytest.fixture
def warehouse(tmp_path, demo_warehouse) -> Path:
    """A private copy of the demo warehouse (night 1), with the raw store beside it: the
    next night's refresh reads its current pages from there."""
    return copy_warehouse(demo_warehouse, tmp_path / "night" / "gpu_pricing.duckdb")


def night2_snapshot(root: Path) -> Path:
    """The next night: Lambda's 8x B200 price moves (one price period closes, one opens)
    and AWS reports one new spot price point, its own (no illustrative statement)."""
    snap = root / "night2"
    lam = snap / "lambdalabs" / "instance_types"
    lam.mkdir(parents=True)
    doc = json.loads((DEMO / "lambdalabs/instance_types/instance-types-0001.json").read_text())
    doc["fetched_at"] = "2026-11-21T02:00:00Z"
    doc["body"]["data"]["gpu_8x_b200_sxm6"]["instance_type"]["price_cents_per_hour"] = 4999
    (lam / "page.json").write_text(json.dumps(doc))
    spot = snap / "aws" / "spot_price_history"
    spot.mkdir(parents=True)
    doc = json.loads((DEMO / "aws/spot_price_history/us-east-1-0001.json").read_text())
    doc["fetched_at"] = "2026-11-21T02:00:00Z"
    point = {**doc["body"]["SpotPriceHistory"][0]}
    point.update(Timestamp="2026-11-21T01:00:00Z", SpotPrice="1.234567")
    doc["body"]["SpotPriceHistory"] = [point]
    # a recorded point, the provider's own: the demo page's statement (its invented points
    # are illustrative, left out of fct_spot_prices) is not this night's
    del doc["provenance"]
    doc["body"]["NextToken"] = ""
    (spot / "page.json").write_text(json.dumps(doc))
    return snap


def refresh_night2(warehouse: Path, root: Path) -> None:
    from connectors.kit.page import FetchContext
    from flows import pipeline

    snap = night2_snapshot(root)
    fetched = {p: pipeline.fetch_pages(p, str(snap), FetchContext()) for p in ("lambdalabs", "aws")}
    pipeline.load_and_publish(warehouse, fetched, source="night2")
