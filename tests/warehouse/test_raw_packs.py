"""Packs of the raw store (warehouse.rawpack): past a landing's first PACK_AFTER new pages,
its objects go into one pack file, finished when the landing syncs. Every page is read
back and checked as before, from a fresh process's store too; an unfinished pack (a killed
landing) is never read and is discarded; a damaged packed object is named by its pack and
rewritten as a file of its own; a store of files only (as written before packs) reads as
it did; and a refresh whose objects are packed publishes what one of files does."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from connectors.kit.page import canonical_json
from tests._cli import cli, cli_json
from tests._warehouse import query, refresh_from, retail_pages
from warehouse import db, raw, rawpack
from warehouse.rawstore import DamagedObject, RawStore, page_sha256


@pytest.fixture
def pack_after_two(monkeypatch):
    monkeypatch.setattr(rawpack, "PACK_AFTER", 2)


def _one_pack(root: Path, n: int) -> tuple[list[str], list[bytes], list[str], Path]:
    """`n` pages landed and synced in one store: its pages and the one pack they made."""
    store = RawStore(root)
    requests, bodies, shas = _pages(n)
    for r, b in zip(requests, bodies, strict=True):
        store.put_page(r, b)
    store.sync()
    (pack,) = store.packs.glob("*.pack")
    return requests, bodies, shas, pack


def _pages(n: int, tag: str = "") -> tuple[list[str], list[bytes], list[str]]:
    requests = [canonical_json({"region": f"r{i}{tag}"}) for i in range(n)]
    bodies = [json.dumps({"Items": [{"i": i, "tag": tag}] * (i * 30 + 1)}).encode() for i in range(n)]
    shas = [page_sha256(r, b) for r, b in zip(requests, bodies, strict=True)]
    return requests, bodies, shas


def test_a_large_landing_packs_its_objects_and_every_page_reads_back(tmp_path, pack_after_two):
    store = RawStore(tmp_path / "s")
    requests, bodies, shas = _pages(7)
    assert [store.put_page(r, b) for r, b in zip(requests, bodies, strict=True)] == shas
    # readable within the landing, before the pack is finished
    assert store.texts(shas, requests).to_pylist() == [b.decode() for b in bodies]
    store.sync()
    assert [store.path(s).exists() for s in shas] == [True, True] + [False] * 5
    (pack,) = store.packs.glob("*.pack")
    assert not list(store.packs.glob(".*"))  # no temporary file left
    again = RawStore(tmp_path / "s")  # another process: the pack found by its index
    assert again.names() == set(shas)
    assert again.texts(shas, requests).to_pylist() == [b.decode() for b in bodies]
    assert again.get_many(shas, requests) == bodies
    assert not again.verify(zip(shas, requests, strict=True))
    assert all(again.holds_whole(s, len(b)) for s, b in zip(shas, bodies, strict=True))
    # content-addressed: stored once, and a later landing packs nothing it already holds
    assert not any(again.put(s, b) for s, b in zip(shas, bodies, strict=True))
    again.sync()
    assert list(again.packs.glob("*.pack")) == [pack]
    assert again.size_bytes() == pack.stat().st_size + sum(
        p.stat().st_size for p in again.iter_objects()
    )


def test_each_landing_counts_its_own_files_before_it_packs(tmp_path, pack_after_two):
    store = RawStore(tmp_path / "s")
    for tag in ("a", "b"):
        requests, bodies, shas = _pages(3, tag)
        for r, b in zip(requests, bodies, strict=True):
            store.put_page(r, b)
        store.sync()
        assert [store.path(s).exists() for s in shas] == [True, True, False]
    assert len(list(store.packs.glob("*.pack"))) == 2


def test_a_killed_landings_pack_is_never_read_and_is_discarded(tmp_path, pack_after_two):
    store = RawStore(tmp_path / "s")
    requests, bodies, shas = _pages(4)
    for r, b in zip(requests, bodies, strict=True):
        store.put_page(r, b)
    # killed before the landing synced: the pack is still under its temporary name
    (tmp,) = store.packs.glob(".*.tmp")
    later = RawStore(tmp_path / "s")
    assert later.names() == set(shas[:2])
    with pytest.raises(DamagedObject, match="is missing"):
        later.texts(shas, requests)
    assert later.discard_partial() == 1 and not tmp.exists()
    # the next landing writes the missing objects again
    for r, b in zip(requests, bodies, strict=True):
        later.put_page(r, b)
    later.sync()
    assert RawStore(tmp_path / "s").get_many(shas, requests) == bodies


def test_a_damaged_packed_object_is_named_by_its_pack_and_rewritten_as_a_file(
    tmp_path, pack_after_two
):
    requests, bodies, shas, pack = _one_pack(tmp_path / "s", 5)
    _, offset, length = RawStore(tmp_path / "s")._index()[shas[3]]
    data = bytearray(pack.read_bytes())
    data[offset + length // 2 : offset + length] = b"\0" * (length - length // 2)
    pack.write_bytes(bytes(data))
    damaged = RawStore(tmp_path / "s")
    with pytest.raises(DamagedObject, match="does not decompress") as caught:
        damaged.texts(shas, requests)
    assert caught.value.sha256 == shas[3] and caught.value.path == pack
    assert damaged.verify(zip(shas, requests, strict=True))[0].sha256 == shas[3]
    # its frame's headers are whole: the full check's landing, which decompresses, rewrites it
    assert not damaged.put(shas[3], bodies[3])
    assert damaged.put(shas[3], bodies[3], compare=True)
    damaged.sync()
    assert damaged.repaired == [shas[3]] and damaged.path(shas[3]).exists()
    assert RawStore(tmp_path / "s").get_many(shas, requests) == bodies


def test_a_pack_whose_index_does_not_read_counts_its_objects_missing(
    tmp_path, pack_after_two, caplog
):
    requests, _, shas, pack = _one_pack(tmp_path / "s", 3)
    pack.write_bytes(pack.read_bytes()[:-3])  # the trailer cut
    later = RawStore(tmp_path / "s")
    with pytest.raises(DamagedObject, match="is missing") as caught:
        later.texts(shas, requests)
    assert caught.value.sha256 == shas[2]
    assert "is not readable" in caplog.text


def test_a_landing_packs_what_it_writes_and_the_ledger_names_every_page(
    tmp_path, pack_after_two
):
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    db.ensure_bookkeeping(con)
    store = RawStore(tmp_path / "s")
    pages = retail_pages(6)
    raw.record(con, "new", [raw.store_pages("new", "azure", pages, store)], store)
    listed = con.sql("SELECT sha256, request FROM _load_pages ORDER BY seq").fetchall()
    assert len(listed) == 6 and len(list(store.packs.glob("*.pack"))) == 1
    fresh = RawStore(tmp_path / "s")
    got = fresh.get_many([s for s, _ in listed], [r for _, r in listed])
    assert sorted(got) == sorted(p.data for p in pages)
    assert raw.verify(con, fresh)["unreferenced"] == []


@pytest.mark.slow  # two demo refreshes and `raw verify`
def test_a_refresh_with_packed_objects_publishes_what_one_with_files_does(
    tmp_path, monkeypatch
):
    def marts(path):  # every row but the run's load ids
        return [
            query(path, f"SELECT COLUMNS(lambda c: c NOT LIKE '%load_id') FROM {m} ORDER BY ALL")
            for m in ("mart_gpu_offers_current", "stg_aws__spot_prices")
        ]

    files = tmp_path / "files.duckdb"
    refresh_from(files, "demo", "aws", "azure")
    assert not (tmp_path / "files.duckdb.raw" / "packs").exists()  # the demo: files only
    monkeypatch.setattr(rawpack, "PACK_AFTER", 2)
    packed = tmp_path / "packed.duckdb"
    summary = refresh_from(packed, "demo", "aws", "azure")
    assert len(list((tmp_path / "packed.duckdb.raw" / "packs").glob("*.pack"))) == 2
    for a, b in zip(marts(packed), marts(files), strict=True):
        assert a.height and a.equals(b)
    verified = cli_json(packed, "raw", "verify")
    assert verified["checked"] == sum(p.fetched for p in summary.providers)
    assert not verified["damaged"] and not verified["unreferenced"]
    again = refresh_from(packed, "demo", "aws", "azure")
    assert all(p.unchanged == p.fetched for p in again.providers)
    assert cli("check", "--all", "--warehouse", packed).exit_code == 0


def test_the_architecture_doc_states_the_packs_threshold_the_store_uses():
    doc = (Path(__file__).parents[2] / "docs" / "architecture.md").read_text()
    assert f"A landing's first {rawpack.PACK_AFTER} new objects" in doc
