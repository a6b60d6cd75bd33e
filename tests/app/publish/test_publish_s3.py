"""`warehouse.publish` against a real S3-compatible server (moto, loopback): two nights
published, read back with pyiceberg and Polars, compared with the DuckDB marts; time travel
to the first night; an interrupted publish leaves the previous night readable (the first
two tests read one shared run of the two nights; the Glue test publishes its two warehouses
again rather than refreshing night 2 once more)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import uuid
from types import SimpleNamespace

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from tests.app.publish.conftest import refresh_night2
from warehouse import publish as pub

pytestmark = pytest.mark.slow

NAMES = [r.name for r in pub.RELATIONS]


def duck(path, relation: str) -> pl.DataFrame:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return pl.from_arrow(con.sql(f'SELECT * FROM "{relation}"').to_arrow_table())
    finally:
        con.close()


def same_rows(got: pl.DataFrame, want: pl.DataFrame) -> None:
    """Equal as multisets of rows, column for column."""
    got = got.select(want.columns)
    assert_frame_equal(
        got.sort(got.columns, nulls_last=True), want.sort(want.columns, nulls_last=True)
    )


@pytest.fixture(scope="module")
def two_nights(s3_endpoint, demo_warehouse, tmp_path_factory):
    """The two nights the first tests read, published once for them: night 1 published,
    night 2 refreshed, a publish of night 2 that dies after three tables (what a reader
    sees then is kept for the checks), and the publish run again. The default catalog is
    replaced only after every table is written, so the publish run again starts from the
    catalog of night 1 as a first try would (its only trace, the dead try's unreferenced
    data files, is why the layout check reads the files the tables reference)."""
    import boto3

    from tests._warehouse import copy_warehouse

    root = tmp_path_factory.mktemp("two_nights")
    s3 = boto3.client("s3", endpoint_url=s3_endpoint, region_name="us-east-1")
    bucket = f"team-{uuid.uuid4().hex[:10]}"
    s3.create_bucket(Bucket=bucket)
    to = f"s3://{bucket}/team/prices"
    warehouse = copy_warehouse(demo_warehouse, root / "night" / "gpu_pricing.duckdb")
    night1 = root / "night1.duckdb"
    shutil.copyfile(warehouse, night1)
    first = pub.publish(warehouse, to)
    refresh_night2(warehouse, root)

    real_write = pub._write_table
    written = []

    def dies_after_three(catalog, ident, *args, **kwargs):
        if len(written) == 3:
            raise OSError("connection reset by peer")
        written.append(ident[1])
        return real_write(catalog, ident, *args, **kwargs)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pub, "_write_table", dies_after_three)
        try:
            pub.publish(warehouse, to)
        except pub.PublishError as exc:
            error = exc
        else:
            error = None
    # what a reader sees between the dead try and the next one
    cat = pub.open_catalog(to, workdir=root)
    between = {}
    for result in first.tables:
        table = cat.load_table(("gpu_pricing", result.name))
        between[result.name] = (
            table.current_snapshot().snapshot_id,
            pl.from_arrow(table.scan().to_arrow()),
        )
    manifest = json.loads(
        s3.get_object(Bucket=bucket, Key="team/prices/manifest.json")["Body"].read()
    )
    second = pub.publish(warehouse, to)
    return SimpleNamespace(
        s3=s3, bucket=bucket, to=to, warehouse=warehouse, night1=night1, first=first,
        written=written, error=error, between=between, manifest_between=manifest,
        second=second,
    )  # fmt: skip


def test_two_nights_on_s3_read_back_equal_with_time_travel(two_nights, tmp_path):
    s3, bucket, to = two_nights.s3, two_nights.bucket, two_nights.to
    warehouse, night1 = two_nights.warehouse, two_nights.night1
    first, second = two_nights.first, two_nights.second

    cat = pub.open_catalog(to, workdir=tmp_path)
    assert sorted(t[1] for t in cat.list_tables("gpu_pricing")) == sorted(NAMES)
    ids1 = {t.name: t.snapshot_id for t in first.tables}
    for result in second.tables:
        table = cat.load_table(("gpu_pricing", result.name))
        # the standard layout under the destination
        assert table.metadata_location.startswith(f"{to}/gpu_pricing/{result.name}/metadata/")
        assert table.metadata_location.endswith(".metadata.json")
        # one snapshot per publish, the newest current
        snapshots = table.snapshots()
        assert [s.snapshot_id for s in snapshots] == [ids1[result.name], result.snapshot_id]
        assert [s.summary[pub.SUMMARY_PUBLISH_ID] for s in snapshots] == [
            first.publish_id,
            second.publish_id,
        ]
        # today's data, through pyiceberg and through Polars, equal to the warehouse
        want = duck(warehouse, result.name)
        assert result.rows == result.table_rows == want.height
        same_rows(pl.from_arrow(table.scan().to_arrow()), want)
        same_rows(pl.scan_iceberg(table).collect(), want)
        # time travel: the first night, by snapshot id and by time
        then = duck(night1, result.name)
        same_rows(pl.from_arrow(table.scan(snapshot_id=ids1[result.name]).to_arrow()), then)
        same_rows(pl.scan_iceberg(table, snapshot_id=ids1[result.name]).collect(), then)
        as_of = table.snapshot_as_of_timestamp(snapshots[1].timestamp_ms - 1)
        assert as_of.snapshot_id == ids1[result.name]

    # what changed overnight, per table semantics
    by_name = {t.name: t for t in second.tables}
    assert by_name["fct_spot_prices"].rows_written == 1  # the one new point, appended
    assert by_name["_loads"].rows_written == 2  # the night's two loads
    prices = cat.load_table(("gpu_pricing", "fct_gpu_prices"))
    assert prices.current_snapshot().summary.operation.value == "overwrite"
    assert duck(warehouse, "fct_gpu_prices").height > duck(night1, "fct_gpu_prices").height
    spot = cat.load_table(("gpu_pricing", "fct_spot_prices"))
    assert spot.current_snapshot().summary["added-records"] == "1"
    # history is partitioned by provider and month
    assert [f.name for f in prices.spec().fields] == ["provider", "valid_from_month"]
    keys = {
        f"s3://{bucket}/{o['Key']}"
        for o in s3.list_objects_v2(
            Bucket=bucket, Prefix="team/prices/gpu_pricing/fct_gpu_prices/data/"
        )["Contents"]
    }
    files = [task.file.file_path for task in prices.scan().plan_files()]
    assert files and set(files) <= keys
    assert any("/provider=aws/valid_from_month=2026-11/" in f for f in files)

    # the manifest: the last complete publish
    manifest = json.loads(
        s3.get_object(Bucket=bucket, Key="team/prices/manifest.json")["Body"].read()
    )
    assert manifest["manifest_version"] == 1
    assert manifest["publish_id"] == second.publish_id
    assert manifest["as_of"] == second.as_of and manifest["as_of"] > first.as_of
    assert {n: t["snapshot_id"] for n, t in manifest["tables"].items()} == {
        t.name: t.snapshot_id for t in second.tables
    }
    assert {n: t["rows"] for n, t in manifest["tables"].items()} == {
        n: duck(warehouse, n).height for n in NAMES
    }
    older = s3.get_object(Bucket=bucket, Key=f"team/prices/manifests/{first.publish_id}.json")
    assert json.loads(older["Body"].read())["tables"]["dim_gpus"]["snapshot_id"] == ids1["dim_gpus"]

    # the DuckDB file itself, byte for byte what was published, attachable read-only
    body = s3.get_object(Bucket=bucket, Key="team/prices/gpu_pricing.duckdb")["Body"].read()
    assert hashlib.sha256(body).hexdigest() == manifest["duckdb"]["sha256"]
    copy = tmp_path / "downloaded.duckdb"
    copy.write_bytes(body)
    con = duckdb.connect()
    con.execute(f"ATTACH '{copy}' AS prices (READ_ONLY)")
    assert (
        con.execute("SELECT count(*) FROM prices.fct_spot_prices").fetchall()[0][0]
        == (manifest["tables"]["fct_spot_prices"]["rows"])
    )
    con.close()


def test_interrupted_publish_leaves_the_previous_night_readable(two_nights, tmp_path):
    warehouse, first = two_nights.warehouse, two_nights.first
    assert two_nights.error is not None, "the publish that dies after three tables raised nothing"
    assert re.search(
        r"table mart_spot_price_stats: OSError: connection reset", str(two_nights.error)
    ), two_nights.error
    # three tables committed to the working catalog, then it died
    assert two_nights.written == NAMES[:3]

    # every table, including the three written, still read as the first night
    assert set(two_nights.between) == set(NAMES)
    for result in first.tables:
        snapshot_id, rows = two_nights.between[result.name]
        assert snapshot_id == result.snapshot_id
        same_rows(rows, duck(two_nights.night1, result.name))
    assert two_nights.manifest_between["publish_id"] == first.publish_id

    # the next attempt converges: no duplicate appends, two snapshots per table
    cat = pub.open_catalog(two_nights.to, workdir=tmp_path)
    for result in two_nights.second.tables:
        table = cat.load_table(("gpu_pricing", result.name))
        assert len(table.snapshots()) == 2
        same_rows(pl.from_arrow(table.scan().to_arrow()), duck(warehouse, result.name))


def test_credentials_come_from_the_environment_and_never_reach_the_manifest(
    s3, bucket, warehouse, capsys
):
    result = pub.publish(warehouse, f"s3://{bucket}/p", include_duckdb=False)
    body = s3.get_object(Bucket=bucket, Key="p/manifest.json")["Body"].read().decode()
    assert "testing-secret-key" not in body and "testing-key-id" not in body
    assert result.duckdb is None
    assert "gpu_pricing.duckdb" not in [
        o["Key"].rsplit("/", 1)[-1] for o in s3.list_objects_v2(Bucket=bucket)["Contents"]
    ]
    out = capsys.readouterr()
    assert "testing-secret-key" not in out.out + out.err


def test_a_missing_bucket_is_one_publish_error_naming_the_destination(s3_endpoint, warehouse):
    with pytest.raises(pub.PublishError, match=r"publish to s3://no-such-bucket-here/x: "):
        pub.publish(warehouse, "s3://no-such-bucket-here/x")


def test_a_glue_catalog_registers_the_tables_for_athena(two_nights, s3_endpoint, s3, bucket):
    """[publish.catalog] type = "glue": the tables land in a Glue database as Iceberg tables
    (what Athena reads), each publish moving Glue's metadata pointer (moto's Glue). The two
    nights are the first tests' warehouses (night 1's copy, then night 2), read only."""
    import boto3
    from pyiceberg.catalog import load_catalog

    catalog = {"type": "glue", "glue.region": "us-east-1"}
    to = f"s3://{bucket}/athena"
    first = pub.publish(two_nights.night1, to, catalog=catalog, include_duckdb=False)
    warehouse = two_nights.warehouse  # night 2
    second = pub.publish(warehouse, to, catalog=catalog, include_duckdb=False)
    glue = boto3.client("glue", endpoint_url=s3_endpoint, region_name="us-east-1")
    for result in second.tables:
        entry = glue.get_table(DatabaseName="gpu_pricing", Name=result.name)["Table"]
        assert entry["Parameters"]["table_type"].upper() == "ICEBERG"
        assert entry["Parameters"]["metadata_location"] == result.metadata_location
    cat = load_catalog("gpu_pricing", **pub.io_properties(pub.Destination.parse(to), catalog))
    prices = cat.load_table(("gpu_pricing", "fct_gpu_prices"))
    ids = [s.snapshot_id for s in prices.snapshots()]
    assert ids == [first.tables[1].snapshot_id, second.tables[1].snapshot_id]
    same_rows(pl.from_arrow(prices.scan().to_arrow()), duck(warehouse, "fct_gpu_prices"))
    assert not any(
        o["Key"].endswith("catalog.db")
        for o in s3.list_objects_v2(Bucket=bucket, Prefix="athena/")["Contents"]
    )


def test_cli_publish_to_s3_in_a_fresh_process(s3, bucket, warehouse):
    """`gpu-pricing publish --to s3://...` as a user runs it: a new process that finds the
    credentials and endpoint in its environment; one JSON document on stdout."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    script = Path(sys.executable).parent / "gpu-pricing"  # the installed console script
    args = [str(script), "publish", "--to", f"s3://{bucket}/cli"]
    args += ["--warehouse", str(warehouse), "--json"]
    runs = [
        subprocess.run(args, capture_output=True, text=True, env=dict(os.environ), timeout=240)
        for _ in range(2)
    ]
    docs = []
    for run in runs:
        assert run.returncode == 0, run.stderr
        assert "testing-secret-key" not in run.stdout + run.stderr
        docs.append(json.loads(run.stdout))
    first, second = docs
    assert first["to"] == f"s3://{bucket}/cli"
    assert {t["name"]: t["rows"] for t in first["tables"]} == {
        n: duck(warehouse, n).height for n in NAMES
    }
    assert {t["name"]: t["rows_written"] for t in second["tables"] if t["mode"] == "append"} == {
        "fct_spot_prices": 0,
        "_loads": 0,
    }
    manifest = json.loads(s3.get_object(Bucket=bucket, Key="cli/manifest.json")["Body"].read())
    assert manifest["publish_id"] == second["publish_id"]
    assert {n: t["snapshot_id"] for n, t in manifest["tables"].items()} == {
        t["name"]: t["snapshot_id"] for t in second["tables"]
    }
