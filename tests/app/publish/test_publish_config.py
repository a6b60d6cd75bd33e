"""[publish] in gpu-pricing.toml: validated on load, secrets only by reference; a configured
catalog instead of the SQLite file; the nightly flow's last step."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from common.errors import InvalidInput
from services import config
from warehouse import publish as pub


def parse(text: str, tmp_path: Path) -> config.Config:
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(text)
    return config.load(path)


def test_publish_section_is_parsed(tmp_path):
    cfg = parse(
        """
[publish]
to = "s3://team-bucket/gpu-pricing"
namespace = "prices"
duckdb = false
[publish.catalog]
type = "sql"
uri_env = "GPU_PRICING_CATALOG_URI"
[publish.properties]
"s3.region" = "eu-west-1"
""",
        tmp_path,
    )
    assert cfg.publish == config.Publish(
        to="s3://team-bucket/gpu-pricing",
        namespace="prices",
        duckdb=False,
        catalog={"type": "sql", "uri_env": "GPU_PRICING_CATALOG_URI"},
        properties={"s3.region": "eu-west-1"},
    )
    assert config.parse({}).publish.to is None  # off unless configured


@pytest.mark.parametrize(
    ("section", "message", "secret"),
    [
        (
            '[publish.catalog]\nuri = "postgresql+psycopg2://gp:hunter2@db.internal/iceberg"',
            "publish.catalog.uri: a secret does not belong in the file",
            "hunter2",
        ),
        (
            '[publish.properties]\n"s3.secret-access-key" = "wJalrXUtnFEMI"',
            "publish.properties.s3.secret-access-key: a secret does not belong in the file; put it in an environment variable and name that with s3.secret-access-key_env",
            "wJalrXUtnFEMI",
        ),
        ('[publish]\nto = "ftp://host/x"', "publish.to: must be a local path or an s3://", None),
        ('[publish]\nbucket = "x"', "publish.bucket: unknown key", None),
        ('[publish]\nnamespace = "a-b"', "publish.namespace: letters, digits and '_' only", None),
        (
            '[publish.catalog]\nuri_env = "not a var"',
            "publish.catalog.uri_env: must be an environment variable name",
            None,
        ),
    ],
)
def test_publish_section_problems_are_one_line_and_never_echo_secrets(
    tmp_path, section, message, secret
):
    with pytest.raises(config.ConfigError) as info:
        parse(section, tmp_path)
    assert message in str(info.value)
    if secret:
        assert secret not in str(info.value)


def test_env_references_resolve_at_publish_time(monkeypatch):
    monkeypatch.setenv("GP_CATALOG_URI", "sqlite:////tmp/x.db")
    assert pub.resolve_properties(
        {"type": "sql", "uri_env": "GP_CATALOG_URI"}, "publish.catalog"
    ) == {
        "type": "sql",
        "uri": "sqlite:////tmp/x.db",
    }
    monkeypatch.delenv("GP_CATALOG_URI")
    with pytest.raises(
        InvalidInput,
        match=r"publish\.catalog\.uri_env: environment variable GP_CATALOG_URI is not set",
    ):
        pub.resolve_properties({"uri_env": "GP_CATALOG_URI"}, "publish.catalog")


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_configured_catalog_replaces_the_sqlite_file(warehouse, tmp_path):
    """A shared SQL catalog (Postgres in production; SQLite stands in for it here): tables
    commit to it directly, and no catalog.db is written beside the tables."""
    from pyiceberg.catalog.sql import SqlCatalog

    shared = tmp_path / "shared-catalog.db"
    out = tmp_path / "published"
    catalog = {"type": "sql", "uri": f"sqlite:///{shared}"}
    first = pub.publish(warehouse, str(out), catalog=catalog, include_duckdb=False)
    second = pub.publish(warehouse, str(out), catalog=catalog, include_duckdb=False)
    assert not (out / "catalog.db").exists()
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["catalog"] == {"type": "sql", "name": "gpu_pricing"}
    cat = SqlCatalog("gpu_pricing", uri=f"sqlite:///{shared}", warehouse=str(out))
    table = cat.load_table("gpu_pricing.dim_gpus")
    assert [s.snapshot_id for s in table.snapshots()] == [
        first.tables[-2].snapshot_id,
        second.tables[-2].snapshot_id,
    ]


def test_the_nightly_flow_publishes_when_configured(prefect_harness, tmp_path):
    from flows.refresh import refresh

    out = tmp_path / "bucket"
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(f'[publish]\nto = "{out}"\n')
    refresh(
        warehouse=str(tmp_path / "w.duckdb"),
        snapshot="demo",
        providers=["lambdalabs"],
        config=str(cfg),
    )
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["tables"]["mart_gpu_offers_current"]["rows"] > 0
    assert (out / "gpu_pricing.duckdb").is_file()


def test_a_failing_publish_is_logged_and_never_fails_the_refresh(prefect_harness, tmp_path):
    from flows.refresh import refresh

    out = tmp_path / "bucket"
    cfg = tmp_path / "gpu-pricing.toml"
    cfg.write_text(f'[publish]\nto = "{out}"\n[publish.catalog]\nuri_env = "GP_UNSET_CATALOG"\n')
    summary = refresh(
        warehouse=str(tmp_path / "w.duckdb"),
        snapshot="demo",
        providers=["lambdalabs"],
        config=str(cfg),
    )
    assert summary.exit_code == 0
    assert (tmp_path / "w.duckdb").is_file()
    assert not (out / "manifest.json").exists()


@pytest.mark.parametrize(
    ("to", "root", "scheme", "account"),
    [
        ("s3://team-bucket/gpu-pricing/", "s3://team-bucket/gpu-pricing", "s3", None),
        ("s3a://team-bucket", "s3://team-bucket", "s3", None),
        ("gs://team-bucket/a/b", "gs://team-bucket/a/b", "gs", None),
        ("az://prices/nightly", "abfs://prices/nightly", "abfs", None),
        (
            "abfss://prices@acct.dfs.core.windows.net/nightly",
            "abfs://prices/nightly",
            "abfs",
            "acct",
        ),
    ],
)
def test_destinations_are_normalised_for_pyarrows_filesystems(to, root, scheme, account):
    dest = pub.Destination.parse(to)
    assert dest == pub.Destination(root, scheme, account)
    if account:  # pyarrow's AzureFileSystem needs the account by name
        assert pub.io_properties(dest)["adls.account-name"] == account


def test_a_local_destination_is_absolute(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert pub.Destination.parse("out/prices") == pub.Destination(
        str(tmp_path / "out/prices"), "file"
    )
    assert pub.Destination.parse(f"file://{tmp_path}/x").root == str(tmp_path / "x")
