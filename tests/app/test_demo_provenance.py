"""The demo tells the truth about itself: every price the demo builder invented is staged
`illustrative` (so the default rankings leave it out and say so), the real values it copies
from public sources stay `api`, and a live page (no statement) is the provider's own."""

from __future__ import annotations

import json
import shutil

import duckdb
import polars as pl
import pytest

from common.errors import InvalidInput
from connectors.kit import provenance
from connectors.kit.snapshot import DEMO_DIR, read_provider
from scripts.demo_provenance import STATEMENTS
from tests._cli import cli, cli_json
from warehouse import raw


def offers(path) -> pl.DataFrame:
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(
            """select provider, region, zone, instance_type, pricing_model, pricing_detail,
                      provenance, is_verified
               from mart_gpu_offers_current"""
        ).pl()
    finally:
        con.close()


def test_every_demo_page_states_its_provenance_and_the_sheets_their_own():
    for provider in sorted(p.name for p in DEMO_DIR.iterdir() if p.is_dir()):
        pages = list(read_provider(DEMO_DIR, provider))
        stated = {json.dumps(p.provenance, sort_keys=True) for p in pages}
        if provider == "sheets":  # each sheet row carries its own provenance
            assert stated == {"null"}
        else:
            assert stated == {json.dumps(STATEMENTS[provider], sort_keys=True)}, provider


def test_the_demo_marks_invented_prices_illustrative_and_keeps_real_ones(demo_warehouse):
    df = offers(demo_warehouse)
    by = {
        (r["provider"], r["region"], r["instance_type"], r["pricing_model"]): r["provenance"]
        for r in df.filter(pl.col("zone").is_null()).iter_rows(named=True)
    }
    # AWS's 2024 us-east-1 list price is real; the same type in us-west-2 is not
    assert by[("aws", "us-east-1", "p5.48xlarge", "on_demand")] == "api"
    assert by[("aws", "us-west-2", "p5.48xlarge", "on_demand")] == "illustrative"
    assert by[("aws", "us-east-1", "p5.48xlarge", "reserved_1y")] == "illustrative"
    assert by[("azure", "eastus", "Standard_ND96asr_v4", "on_demand")] == "api"
    assert by[("azure", "eastus", "Standard_ND96isr_H100_v5", "on_demand")] == "illustrative"
    assert by[("gcp", "us-central1", "a3-highgpu-8g", "on_demand")] == "api"
    assert by[("gcp", "us-central1", "a3-highgpu-8g", "spot")] == "illustrative"
    # a provider whose every price is invented, and one whose every price is real
    assert set(df.filter(pl.col("provider") == "vastai")["provenance"]) == {"illustrative"}
    assert set(df.filter(pl.col("provider") == "lambdalabs")["provenance"]) == {"api"}
    # every real value the statements name is in the demo (no stale selector)
    for provider, statement in STATEMENTS.items():
        for selector in statement["api"]:
            cond = pl.col("provider") == provider
            for key, value in selector.items():
                cond &= pl.col(key) == value
            matched = df.filter(cond)
            assert matched.height, (provider, selector)
            assert set(matched["provenance"]) == {"api"}, (provider, selector)
    # the invented prices are most of the demo, and none of them counts by default
    illustrative = df.filter(pl.col("provenance") == "illustrative")
    assert illustrative.height > df.height / 2
    assert not illustrative["is_verified"].any()


def test_a_default_ranking_reads_real_demo_prices_only(demo_warehouse):
    con = duckdb.connect(str(demo_warehouse), read_only=True)
    try:
        ranked = con.sql(
            """select distinct o.provenance from mart_cheapest_gpu_hour c
               join mart_gpu_offers_current o using (provider, region, instance_type,
                                                     pricing_model)"""
        ).fetchall()
    finally:
        con.close()
    assert {r[0] for r in ranked} <= {"api", "published_sheet"}


def test_rates_says_how_many_illustrative_prices_it_left_out(demo_warehouse):
    out = cli("rates", "--gpu", "H100", "--warehouse", str(demo_warehouse))
    assert out.exit_code == 0, out.stderr
    assert "illustrative price, unranked" not in out.stdout
    line = " ".join(out.stdout.partition("\n\n")[2].split())
    assert line.startswith("Not ranked: ") and "illustrative" in line
    assert "--include-illustrative" in line
    doc = cli_json(demo_warehouse, "rates", "--gpu", "H100")
    assert doc["left_out"]["illustrative"] > 0
    assert all(r["is_verified"] for r in doc["rates"])
    every = cli_json(
        demo_warehouse, "rates", "--gpu", "H100", "--limit", "1000", "--include-illustrative"
    )
    hidden = [r for r in every["rates"] if not r["is_verified"]]
    assert len(hidden) == sum(doc["left_out"].values())
    assert {r["note"] for r in hidden if r["provenance"] == "illustrative"} == {
        "illustrative price, unranked"
    }
    assert every["left_out"] == {}


def test_estimate_says_how_many_illustrative_prices_it_left_out(demo_warehouse):
    train = ["estimate", "train", "--params", "7e9", "--tokens", "1e11", "--gpu", "H100"]
    out = cli(*train, "--warehouse", str(demo_warehouse))
    assert out.exit_code == 0, out.stderr
    footer = " ".join(out.stdout.rstrip().split("\n\n")[-1].split())
    assert footer.startswith("Not ranked: ") and "illustrative" in footer
    doc = cli_json(demo_warehouse, *train)
    assert doc["left_out"]["illustrative"] > 0
    assert doc["offer"]["provenance"] in {"api", "published_sheet"}
    asked = cli_json(demo_warehouse, *train, "--include-illustrative")
    assert asked["left_out"] == {}
    assert cli_json(demo_warehouse, *train, "--rate", "2.0")["left_out"] == {}


# -- the rule itself, and the live path ------------------------------------------------------


def _offers(**cols) -> pl.DataFrame:
    base = {
        "provider": ["aws", "aws", "aws", "sheets"],
        "region": ["us-east-1", "us-west-2", "us-east-1", "any"],
        "zone": [None, None, None, None],
        "instance_type": ["p5", "p5", "p5", "row"],
        "pricing_model": ["on_demand", "on_demand", "spot", "on_demand"],
        "pricing_detail": [None, None, None, None],
        "provenance": ["api", "api", "api", "published_sheet"],
        "load_id": ["l1", "l1", "l2", "l1"],
    }
    return pl.DataFrame({**base, **cols})


def test_a_page_that_says_nothing_leaves_every_price_the_providers_own():
    pages = pl.DataFrame({"load_id": ["l1", "l2"], "provenance": [None, None]})
    frame = _offers()
    assert provenance.apply(frame, pages).equals(frame)


def test_a_statement_marks_the_unmatched_offers_of_its_load_only():
    statement = {
        "default": "illustrative",
        "api": [{"region": "us-east-1", "instance_type": "p5", "pricing_model": "on_demand"}],
    }
    pages = pl.DataFrame({"load_id": ["l1"], "provenance": [provenance.text(statement)]})
    marked = provenance.apply(_offers(), pages)["provenance"].to_list()
    # matched: api; unmatched in l1: illustrative; l2 says nothing; a sheet row keeps its own
    assert marked == ["api", "illustrative", "api", "published_sheet"]


def test_selectors_of_several_kinds_match_by_every_key_within_their_own_load():
    """Selectors naming different keys each match on all of theirs; a key the offer leaves
    null (its zone) is never equal; a selector marks only offers of its own load; pages of
    one load that disagree take the more cautious default."""
    l1 = {
        "default": "illustrative",
        "api": [
            {"instance_type": "p5", "pricing_model": "on_demand", "region": "us-west-2"},
            {"zone": "us-east-1a", "instance_type": "p5"},  # the offers have no zone
        ],
    }
    l1_other_page = {"default": "api", "api": [{"pricing_model": "spot"}]}
    l2 = {"default": "unverified", "api": [{"region": "us-west-2"}]}
    pages = pl.DataFrame(
        {
            "load_id": ["l1", "l1", "l2"],
            "provenance": [provenance.text(x) for x in (l1, l1_other_page, l2)],
        }
    )
    marked = provenance.apply(_offers(), pages)["provenance"].to_list()
    # l1: us-east-1 p5 unmatched (illustrative wins over the other page's api), us-west-2
    # p5 matched; l2's spot p5 is in us-east-1 (l1's spot selector is not l2's); sheet kept
    assert marked == ["illustrative", "api", "unverified", "published_sheet"]


@pytest.mark.parametrize(
    ("value", "problem"),
    [
        ("illustrative", "expected an object"),
        ({"default": "made-up"}, "default must be one of"),
        ({"default": "illustrative", "api": [{"gpu_name": "H100"}]}, "api must be a list"),
        ({"default": "illustrative", "api": [{"region": 1}]}, "api must be a list"),
    ],
)
def test_a_malformed_statement_is_one_error_naming_the_file(tmp_path, value, problem):
    root = tmp_path / "snap"
    shutil.copytree(DEMO_DIR / "hotaisle", root / "hotaisle")
    page = next((root / "hotaisle").rglob("*.json"))
    doc = json.loads(page.read_text())
    doc["provenance"] = value
    page.write_text(json.dumps({k: doc[k] for k in ("fetched_at", "request", "provenance", "body")}))
    with pytest.raises(InvalidInput, match=problem) as info:
        list(read_provider(root, "hotaisle"))
    assert str(page) in str(info.value)


def test_the_pages_digest_of_unmarked_pages_is_unchanged():
    """A live warehouse's staged offers are not re-parsed for the new column: the digest of
    pages without a statement is the one computed before statements existed."""
    import hashlib

    def page(endpoint: str, sha256: str, provenance: str | None) -> tuple:
        row = {"endpoint": endpoint, "sha256": sha256, "provenance": provenance}
        return tuple(row.get(c, f"other {c}") for c in raw._INDEX_COLUMNS)

    before = hashlib.sha256(b"a:s1\nb:s2").hexdigest()
    assert raw.pages_digest([page("a", "s1", None), page("b", "s2", None)]) == before
    marked = '{"default":"illustrative"}'
    assert raw.pages_digest([page("a", "s1", marked), page("b", "s2", marked)]) != before


@pytest.mark.slow
def test_refresh_and_rates_count_the_same_prices_left_out(demo_warehouse, tmp_path):
    """The count `refresh` prints is what `rates --include-illustrative` adds: one rule
    (api.read_left_out), not a second count that also took in offers rates never lists."""
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    refreshed = cli_json(path, "refresh", "--snapshot", "demo")
    rates = cli_json(path, "rates", "--limit", "1")
    assert refreshed["left_out"] == rates["left_out"]
    assert refreshed["left_out"]["illustrative"] > 0
    every = cli_json(path, "rates", "--limit", "100000", "--include-illustrative")
    assert sum(not r["is_verified"] for r in every["rates"]) == sum(rates["left_out"].values())
