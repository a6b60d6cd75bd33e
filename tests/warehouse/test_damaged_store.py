"""A damaged raw store never changes published prices silently: a read checks each object
against its name; a damaged or undecodable object fails the provider reading it alone (one
line naming the provider, page and object, with the repair), which keeps its last good
offers; `gpu-pricing raw verify` finds every damaged object (exit 1); a refresh that
fetches the page again rewrites an object whose zstd frame is broken (its landing reads the
frame's headers, not its content), and the full check rewrites one changed inside a whole
frame (its landing decompresses each stored object and compares it with the page)."""

from __future__ import annotations

import duckdb
import pytest
import zstandard

from flows import pipeline
from tests._cli import cli
from tests._warehouse import copy_warehouse
from warehouse.rawstore import RawStore


@pytest.fixture
def warehouse(tmp_path, demo_warehouse):
    path = copy_warehouse(demo_warehouse, tmp_path / "w.duckdb")
    return path


def _spot_page(demo_pages):
    return next(p for p in demo_pages["aws"] if p.endpoint == "spot_price_history")


def _flip_a_byte_inside(store: RawStore, sha: str) -> None:
    """One changed byte of the page's body: the object still decompresses."""
    data = bytearray(zstandard.ZstdDecompressor().decompress(store.path(sha).read_bytes()))
    at = data.index(b"SpotPrice") + 14
    data[at] = ord("9") if data[at] != ord("9") else ord("8")
    store.path(sha).write_bytes(zstandard.ZstdCompressor(level=1).compress(bytes(data)))


def _break_the_frame(store: RawStore, sha: str) -> None:
    blob = bytearray(store.path(sha).read_bytes())
    blob[len(blob) // 2 :] = b"\0" * (len(blob) - len(blob) // 2)
    store.path(sha).write_bytes(bytes(blob))


def _offers(path, provider):
    con = duckdb.connect(str(path), read_only=True)
    try:
        return con.sql(
            "SELECT * FROM mart_gpu_offers_current WHERE provider = $p ORDER BY ALL",
            params={"p": provider},
        ).fetchall()
    finally:
        con.close()


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
@pytest.mark.parametrize(
    "damage", [_flip_a_byte_inside, _break_the_frame], ids=["flipped", "broken"]
)
def test_a_damaged_object_fails_its_provider_alone_and_keeps_its_offers(
    warehouse, demo_pages, damage
):
    store = RawStore.beside(warehouse)
    page = _spot_page(demo_pages)
    damage(store, page.sha256)
    aws_before = _offers(warehouse, "aws")

    verified = cli("raw", "verify", "--warehouse", warehouse)
    assert verified.exit_code == 1
    assert f"aws: page spot_price_history/{page.scope}" in verified.stderr
    assert page.sha256 in verified.stderr and "repair:" in verified.stderr

    # aws parses its current pages again (here: its parse record is gone), the damaged
    # spot page among them, while landing pages that do not include it
    con = duckdb.connect(str(warehouse))
    con.execute("DELETE FROM _staged WHERE connector = 'aws'")
    con.close()
    fetched = {
        "aws": [p for p in demo_pages["aws"] if p.endpoint != "spot_price_history"],
        "lambdalabs": demo_pages["lambdalabs"],
    }
    summary = pipeline.load_and_publish(warehouse, fetched, source="demo")
    by = {p.provider: p for p in summary.providers}
    assert by["aws"].status == "failed" and by["lambdalabs"].status == "ok"
    assert summary.exit_code == 1
    (line,) = by["aws"].failed
    assert "\n" not in line
    assert page.sha256 in line and f"spot_price_history/{page.scope}" in line
    assert "repair:" in line
    assert _offers(warehouse, "aws") == aws_before  # its last good data, unchanged

    # fetching the page again: a broken frame is rewritten by any refresh; a whole frame
    # with a changed byte inside is trusted (an unchanged page costs its hash, not a
    # decompression), and still fails the parse that reads it
    again = pipeline.load_and_publish(warehouse, {"aws": demo_pages["aws"]}, source="demo")
    broken = damage is _break_the_frame
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == (0 if broken else 1)
    assert again.exit_code == (0 if broken else 3)  # its one provider failed
    if not broken:
        (line,) = again.providers[0].failed
        assert page.sha256 in line and "--full-check" in line  # the repair it names
        # the full check compares each stored object with the page: rewritten
        full = pipeline.load_and_publish(
            warehouse, {"aws": demo_pages["aws"]}, source="demo", full_check=True
        )
        assert full.exit_code == 0 and full.full_check
    assert cli("raw", "verify", "--warehouse", warehouse).exit_code == 0
    assert _offers(warehouse, "aws") == aws_before


def test_verify_names_a_missing_object(warehouse, demo_pages):
    store = RawStore.beside(warehouse)
    page = _spot_page(demo_pages)
    store.path(page.sha256).unlink()
    result = cli("raw", "verify", "--warehouse", warehouse, "--json")
    assert result.exit_code == 1
    assert "is missing" in result.stderr and page.sha256 in result.stderr


@pytest.mark.slow  # two checks of the demo warehouse
def test_check_all_reads_every_stored_object_whole(warehouse, demo_pages):
    """`gpu-pricing check --all` (the full check, read-only) decompresses and hashes every
    object the ledger names: a changed byte inside a whole frame, which a landing trusts,
    is a failed check naming the page; `check` without --all does not read the store."""
    page = _spot_page(demo_pages)
    assert cli("check", "--all", "--warehouse", warehouse).exit_code == 0
    _flip_a_byte_inside(RawStore.beside(warehouse), page.sha256)
    assert cli("check", "--warehouse", warehouse).exit_code == 0
    full = cli("check", "--all", "--warehouse", warehouse)
    assert full.exit_code == 3
    assert "raw_store_objects failed: 1 row(s)" in full.stderr
    assert f"spot_price_history/{page.scope}" in full.stderr and page.sha256 in full.stderr
