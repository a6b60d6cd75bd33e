"""The raw store beside the warehouse: page bytes as read, content-addressed and
compressed; the ledger in the warehouse; and the move of warehouses written before it
(payloads in `raw_*` tables) into the store."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import duckdb
import orjson
import polars as pl
import pytest
import zstandard

from common.schemas import raw_ddl, raw_table
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import Page, canonical_json
from tests._warehouse import copy_warehouse, query, refresh, retail_pages
from warehouse import db, raw, staging
from warehouse.rawstore import DamagedObject, RawStore, page_sha256
from warehouse.snapshot_export import export_snapshot

MARTS = ["fct_gpu_prices", "mart_gpu_offers_current", "mart_cheapest_gpu_hour"]


def demo(provider: str = "azure") -> list:
    return list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, provider))


def body_bytes_in_file(path: Path) -> bytes:
    """The body exactly as it sits in a snapshot file (the last key of the envelope)."""
    raw = path.read_bytes()
    return raw[raw.index(b'"body":') + len(b'"body":') :].strip().removesuffix(b"}").strip()


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_pages_are_stored_as_read_content_addressed_and_compressed(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    pages = query(path, "SELECT * FROM _load_pages ORDER BY load_id, seq")
    assert pages.height == 17 and not pages["unchanged"].any()
    store = RawStore.beside(path)
    assert store.root == tmp_path / "w.duckdb.raw"
    files = sorted((kit_snapshot.DEMO_DIR / "azure" / "retail_prices").glob("*.json"))
    as_read = {body_bytes_in_file(f) for f in files}
    for row in pages.iter_rows(named=True):
        obj = store.path(row["sha256"])
        assert obj.read_bytes()[:4] == b"\x28\xb5\x2f\xfd"  # a zstd frame
        data = store.get(row["sha256"])
        assert data in as_read  # the snapshot file's body byte for byte, not re-serialised
        assert row["bytes"] == len(data) and row["format"] == "json"
        request = json.loads(row["request"])
        assert hashlib.sha256(canonical_json(request).encode() + data).hexdigest() == row["sha256"]
        assert row["fetched_at"] is not None and request["region"]
    # no payload in the analytics file
    tables = query(path, "SELECT table_name FROM duckdb_tables()")["table_name"].to_list()
    assert not [t for t in tables if t.startswith("raw_")]


def test_the_store_is_append_only_and_never_copied(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    store = RawStore.beside(path)
    stamps = {p: p.stat().st_mtime_ns for p in store.iter_objects()}
    second = refresh(path, {"azure": demo()})
    assert second.providers[0].unchanged == 17
    assert {p: p.stat().st_mtime_ns for p in store.iter_objects()} == stamps  # not rewritten
    assert not list(tmp_path.glob("*.raw.next")) and not list(store.root.rglob("*.tmp"))


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_parser_change_re_parses_unchanged_pages(azure_warehouse, tmp_path, monkeypatch):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    assert refresh(path, {"azure": demo()}).providers[0].reused
    monkeypatch.setattr(staging, "code_digest", lambda name: "a parser fix")
    again = refresh(path, {"azure": demo()})
    assert not again.providers[0].reused and again.providers[0].loaded > 0


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_one_changed_region_re_parses_the_provider(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    pages = demo()
    first = next(i for i, p in enumerate(pages) if p.scope == "westus2")
    body = orjson.loads(pages[first].data)
    price = round(body["Items"][0]["retailPrice"] * 1.2, 4)  # a plausible move (+20%)
    body["Items"][0]["retailPrice"] = body["Items"][0]["unitPrice"] = price
    pages[first] = Page(
        "azure", "retail_prices", pages[first].fetched_at, pages[first].request, body=body
    )
    summary = refresh(path, {"azure": pages})
    (azure,) = summary.providers
    assert not azure.reused and azure.unchanged == 16 and summary.history["opened"] == 1


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_snapshot_export_writes_the_stored_bytes_and_replays_to_the_same_pages(
    azure_warehouse, tmp_path
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    con = db.connect_readonly(path)
    try:
        counts = export_snapshot(con, tmp_path / "out")
    finally:
        con.close()
    assert counts == {"azure/retail_prices": 17}
    replayed = list(kit_snapshot.read_provider(tmp_path / "out", "azure"))
    ledger = query(path, "SELECT sha256 FROM _load_pages")["sha256"].to_list()
    assert sorted(p.sha256 for p in replayed) == sorted(ledger)  # same bytes, same address
    # replaying the export into the same warehouse stores nothing new
    again = refresh(path, {"azure": replayed})
    assert again.providers[0].unchanged == 17 and again.providers[0].reused


def test_a_csv_file_page_round_trips_byte_for_byte(tmp_path):
    path = tmp_path / "w.duckdb"
    refresh(path, {"sheets": demo("sheets")})
    con = db.connect_readonly(path)
    try:
        export_snapshot(con, tmp_path / "out")
    finally:
        con.close()
    for original in (kit_snapshot.DEMO_DIR / "sheets").rglob("*.csv"):
        exported = list((tmp_path / "out" / "sheets").rglob("*.csv"))
        assert original.read_bytes() in {e.read_bytes() for e in exported}


# --- warehouses written before the raw store --------------------------------------------


def downgrade(path: Path) -> None:
    """Rewrite a warehouse into the layout earlier versions wrote: every payload in a
    `raw_<provider>__<endpoint>` table (DDL `common.schemas.raw_ddl`) as compact JSON
    text, hashed over the canonical request and that text; `_load_pages` with only
    load_id, seq, sha256 and unchanged; no raw store."""
    store = RawStore.beside(path)
    con = duckdb.connect(str(path))
    try:
        pages = db.query(
            con,
            """SELECT p.*, l.provider, l.endpoint, l.scope FROM _load_pages p
               JOIN _loads l USING (load_id)""",
        )
        old_rows, remap = [], {}
        for row in pages.iter_rows(named=True):
            payload = orjson.dumps(orjson.loads(store.get(row["sha256"]))).decode()
            request = json.loads(row["request"])
            old = hashlib.sha256((canonical_json(request) + payload).encode()).hexdigest()
            remap[row["sha256"]] = old
            if not row["unchanged"]:
                old_rows.append(
                    {
                        "table": raw_table(row["provider"], row["endpoint"]),
                        "_load_id": row["load_id"],
                        "_fetched_at": row["fetched_at"],
                        "_scope": row["scope"],
                        "_source_url": row["source_url"],
                        "_request": json.dumps(request, sort_keys=True, default=str),
                        "_sha256": old,
                        "_ingested_at": row["fetched_at"],
                        "_payload": payload,
                    }
                )
        for table, rows in pl.DataFrame(old_rows).group_by("table"):
            db.run(con, raw_ddl(str(table[0])))
            db.insert_frame(con, str(table[0]), rows.drop("table"))
        con.register("_remap", pl.DataFrame({"new": remap.keys(), "old": remap.values()}))
        db.run(con, "UPDATE _load_pages SET sha256 = r.old FROM _remap r WHERE sha256 = r.new")
        for column in ("fetched_at", "request", "source_url", "bytes", "format", "provenance"):
            db.run(con, f"ALTER TABLE _load_pages DROP COLUMN {column}")
        db.run(con, "DROP TABLE _staged")
        db.run(con, "CHECKPOINT")
    finally:
        con.close()
    for obj in store.iter_objects():
        obj.unlink()


def export(path: Path, out: Path) -> dict[Path, bytes]:
    con = db.connect_readonly(path)
    try:
        export_snapshot(con, out)
    finally:
        con.close()
    return {p.relative_to(out): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_moving_raw_tables_to_the_store_loses_nothing(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    refresh(path, {"azure": demo()})  # a second load listing every page as unchanged
    downgrade(path)
    before = {m: query(path, f"SELECT * FROM {m} ORDER BY ALL") for m in [*MARTS, "_loads"]}
    payloads = query(path, "SELECT _sha256, _payload FROM raw_azure__retail_prices")
    assert payloads.height == 17
    exported_before = export(path, tmp_path / "before")  # read from the raw tables
    assert staging.migrate_raw(path) == 17

    tables = query(path, "SELECT table_name FROM duckdb_tables()")["table_name"].to_list()
    assert not [t for t in tables if t.startswith("raw_")]
    store = RawStore.beside(path)
    for sha, payload in payloads.iter_rows():  # every page's bytes, under its old address
        assert store.get(sha) == payload.encode()
    assert export(path, tmp_path / "after") == exported_before  # byte for byte
    for name, rows in before.items():
        assert query(path, f"SELECT * FROM {name} ORDER BY ALL").equals(rows), name
    ledger = query(path, "SELECT * FROM _load_pages")
    assert ledger.height == 34
    assert ledger.filter(pl.col("fetched_at").is_null() | pl.col("bytes").is_null()).is_empty()


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_moving_raw_tables_out_shrinks_the_published_file(tmp_path, monkeypatch):
    from tests.warehouse.test_publish_atomic import big_snapshot

    big_snapshot(tmp_path / "snap", pages=20, items_per_page=500)
    path = tmp_path / "w.duckdb"
    # a file with raw tables was made by a release that wrote the 1.1 storage format, where
    # the payloads take about half the file (in the 1.3 format, 4 of its 29 blocks)
    monkeypatch.setattr(db, "STORAGE_COMPATIBILITY", "v1.1.0")
    refresh(path, {"azure": list(kit_snapshot.read_provider(tmp_path / "snap", "azure"))})
    downgrade(path)
    size_before = path.stat().st_size
    monkeypatch.setattr(db, "COMPACT_MIN_BYTES", 0)
    # the file also holds the materialised marts (as many rows as offers here): at this
    # small size the payloads moved out free just under half of it
    monkeypatch.setattr(db, "COMPACT_FREE_FRACTION", 0.4)
    assert staging.migrate_raw(path) == 20
    # DuckDB never shrinks a file: the free blocks the payloads left are compacted away
    assert path.stat().st_size < size_before / 2
    assert query(path, "SELECT count(*) AS n FROM mart_gpu_offers_current")["n"].item() == 10000


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_the_first_refresh_of_a_warehouse_with_raw_tables_moves_them(azure_warehouse, tmp_path):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    downgrade(path)
    before = {m: query(path, f"SELECT * FROM {m} ORDER BY ALL") for m in MARTS}
    payloads = query(path, "SELECT _sha256, _payload FROM raw_azure__retail_prices")
    summary = refresh(path, {"azure": demo()})
    assert summary.exit_code == 0 and "migrate" in summary.timings
    tables = query(path, "SELECT table_name FROM duckdb_tables()")["table_name"].to_list()
    assert not [t for t in tables if t.startswith("raw_")]
    store = RawStore.beside(path)
    for sha, payload in payloads.iter_rows():
        assert store.get(sha) == payload.encode()
    for mart, rows in before.items():  # the same prices, re-parsed from the store
        assert (
            query(path, f"SELECT * FROM {mart} ORDER BY ALL")
            .drop("load_id", strict=False)
            .equals(rows.drop("load_id", strict=False))
        ), mart


@pytest.mark.slow  # over ~2 s on a quiet 2-core machine
def test_a_failed_migration_leaves_the_old_warehouse_as_it_was(
    azure_warehouse, tmp_path, monkeypatch
):
    path = copy_warehouse(azure_warehouse, tmp_path / "w.duckdb")
    downgrade(path)
    published = path.read_bytes()

    def broken(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(RawStore, "put", broken)
    with pytest.raises(OSError, match="disk full"):
        refresh(path, {"azure": demo()})
    assert path.read_bytes() == published
    monkeypatch.undo()
    assert refresh(path, {"azure": demo()}).exit_code == 0


def test_store_objects_are_whole_zstd_frames(tmp_path):
    store = RawStore(tmp_path / "s")
    assert store.put("ab" + "0" * 62, b"x" * 1000)
    assert not store.put("ab" + "0" * 62, b"x" * 1000)  # content-addressed: stored once
    assert zstandard.ZstdDecompressor().decompress(store.path("ab" + "0" * 62).read_bytes()) == (
        b"x" * 1000
    )


def test_pages_read_together_come_back_in_order_and_a_damaged_one_is_named(tmp_path):
    """`texts` places each page in one buffer by the length its frame states: every page
    comes back whole and in order, and a cut, foreign or missing object fails naming it."""
    store = RawStore(tmp_path / "s")
    requests = [canonical_json({"region": f"r{i}"}) for i in range(7)]
    bodies = [json.dumps({"Items": [{"i": i}] * (i * 50 + 1)}).encode() for i in range(7)]
    shas = [page_sha256(r, b) for r, b in zip(requests, bodies, strict=True)]
    for sha, body in zip(shas, bodies, strict=True):
        store.put(sha, body)
    assert store.texts(shas, requests).to_pylist() == [b.decode() for b in bodies]

    target = store.path(shas[3])
    whole = target.read_bytes()
    foreign = zstandard.ZstdCompressor(write_content_size=True).compress(bodies[2])
    for damaged, cause in [(whole[:-4], "does not decompress"), (foreign, "do not hash")]:
        target.write_bytes(damaged)
        with pytest.raises(DamagedObject, match=cause) as caught:
            store.texts(shas, requests)
        assert caught.value.sha256 == shas[3]
    target.unlink()
    with pytest.raises(DamagedObject, match="is missing"):
        store.texts(shas, requests)


def test_pages_held_since_they_were_written_are_read_once_without_their_objects(tmp_path):
    """`keep`: the pages a landing writes are held (within the limit) for the parse that
    follows, which takes them without reading their objects and lets them go; a page
    already stored, one beyond the limit, and any page once `keep(0)` is called are read
    from the store as before."""
    store = RawStore(tmp_path / "s")
    requests = [canonical_json({"region": f"r{i}"}) for i in range(6)]
    bodies = [json.dumps({"Items": [{"i": i}] * (i * 40 + 1)}).encode() for i in range(6)]
    shas = [page_sha256(r, b) for r, b in zip(requests, bodies, strict=True)]
    store.put_page(requests[0], bodies[0])  # stored before: not held when put again
    store.keep(sum(map(len, bodies[:5])))  # room for pages 0-4 (page 0 takes none)
    assert [store.put_page(r, b, keep=True) for r, b in zip(requests, bodies, strict=True)] == shas
    for sha in shas:  # the objects gone: only what is held can still be read
        store.path(sha).unlink()
    store.put_page(requests[0], bodies[0])  # page 0 again, written now but not kept
    held = [1, 2, 3, 4]  # page 5 is beyond the limit (pages 1-4 took 4 of 5 pages' room)
    assert store.texts([shas[i] for i in held], [requests[i] for i in held]).to_pylist() == [
        bodies[i].decode() for i in held
    ]
    with pytest.raises(DamagedObject, match="is missing"):  # let go once read
        store.texts([shas[1]], [requests[1]])
    with pytest.raises(DamagedObject, match="is missing"):
        store.texts([shas[5]], [requests[5]])
    assert store.texts([shas[0]], [requests[0]]).to_pylist() == [bodies[0].decode()]
    store.keep(len(bodies[1]))
    store.put_page(requests[1], bodies[1], keep=True)
    store.keep(0)  # dropped: read from the store
    store.path(shas[1]).unlink()
    with pytest.raises(DamagedObject, match="is missing"):
        store.texts([shas[1]], [requests[1]])


def test_pages_held_compressed_are_read_from_memory_within_their_compressed_limit(tmp_path):
    """`keep(compressed=True)`: each page written is held as its object (its compressed
    bytes count against the limit), and `texts` decompresses it from memory, its object not
    read; beside pages read from the store, in the order asked."""
    store = RawStore(tmp_path / "s")
    requests = [canonical_json({"region": f"r{i}"}) for i in range(4)]
    bodies = [json.dumps({"Items": [{"i": i, "sku": "x" * 50}] * 2000}).encode() for i in range(4)]
    shas = [page_sha256(r, b) for r, b in zip(requests, bodies, strict=True)]
    blobs = [RawStore(tmp_path / "t").put_page(r, b) for r, b in zip(requests, bodies, strict=True)]
    sizes = [(tmp_path / "t").joinpath("objects", s[:2], f"{s}.zst").stat().st_size for s in blobs]
    assert sizes[0] * 10 < len(bodies[0])  # the room a page takes is its object's
    store.keep(sum(sizes[:3]), compressed=True)  # room for three objects, not for one page
    for r, b in zip(requests, bodies, strict=True):
        store.put_page(r, b, keep=True)
    for sha in shas[:3]:  # held: their objects are not read
        store.path(sha).unlink()
    order = [2, 3, 0, 1]  # page 3 was beyond the limit: read from its object
    assert store.texts([shas[i] for i in order], [requests[i] for i in order]).to_pylist() == [
        bodies[i].decode() for i in order
    ]
    with pytest.raises(DamagedObject, match="is missing"):  # let go once read
        store.texts([shas[0]], [requests[0]])


def test_a_landing_says_once_that_it_wrote_a_page_and_an_unchanged_one_never_does(tmp_path):
    """`land(on_write=...)`: called once when the landing has written a page not stored
    before (the refresh then imports what the parse needs while the rest lands), never when
    every page was stored already (an unchanged refresh imports nothing it will not use)."""
    con = duckdb.connect(str(tmp_path / "w.duckdb"))
    db.ensure_bookkeeping(con)
    store = RawStore(tmp_path / "s")
    pages = retail_pages(20)
    calls: list[str] = []
    for run_id in ("new", "again"):
        landed = raw.store_pages(
            run_id, "azure", pages, store, on_write=lambda run_id=run_id: calls.append(run_id)
        )
        raw.record(con, run_id, [landed], store)
        assert sum(ld.pages for ld in landed.loads) == len(pages)
    assert calls == ["new"]


@pytest.mark.slow  # a refresh of three demo providers
def test_a_refresh_holds_only_the_first_providers_pages_and_only_until_its_parse(
    tmp_path, monkeypatch
):
    """The pages held for a parse (`RawStore.keep`) are the first provider's, and nothing is
    held while any other provider parses: held pages never add to another parse's memory.
    The published rows are the same as a refresh that holds nothing."""
    held: list[str] = []
    during: list[tuple[int, int]] = []  # (pages asked for, pages held) at each read
    hold, texts = RawStore._hold, RawStore.texts

    def spy_hold(self, sha256, data, blob):
        hold(self, sha256, data, blob)
        held.extend(s for s in [sha256] if s in self._kept)

    def spy_texts(self, shas, requests=None):
        shas = list(shas)
        during.append((len(shas), len(self._kept)))
        return texts(self, shas, requests)

    monkeypatch.setattr(RawStore, "_hold", spy_hold)
    monkeypatch.setattr(RawStore, "texts", spy_texts)
    order = ["lambdalabs", "azure", "runpod"]  # the first parsed, one parsed in batches, one
    pages = {p: list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, p)) for p in order}
    summary = refresh(tmp_path / "w.duckdb", pages)
    assert summary.exit_code == 0
    assert 0 < len(held) == len(pages["lambdalabs"])  # the first provider's, every page
    assert during[0] == (len(held), len(held))  # its parse took them all
    assert all(n_held == 0 for _, n_held in during[1:])  # and nothing was held after

    _same_marts_holding_nothing(tmp_path, monkeypatch, pages)


@pytest.mark.slow  # two refreshes of two demo providers
def test_a_first_provider_parsed_in_batches_holds_its_objects_and_reads_none_back(
    tmp_path, monkeypatch
):
    """Azure first (parsed in batches): its pages are held compressed from their landing,
    and its parse reads no object from the store; the published rows are the same as a
    refresh that holds nothing."""
    held: list[bool] = []  # each page held: whether as its object
    read: list[str] = []  # objects read from the store
    hold, read_object = RawStore._hold, RawStore._read

    def spy_hold(self, sha256, data, blob):
        hold(self, sha256, data, blob)
        held.append(sha256 in self._kept and self._keep_compressed)

    def spy_read(self, sha256):
        read.append(sha256)
        return read_object(self, sha256)

    monkeypatch.setattr(RawStore, "_hold", spy_hold)
    monkeypatch.setattr(RawStore, "_read", spy_read)
    pages = {
        p: list(kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, p)) for p in ("azure", "runpod")
    }
    summary = refresh(tmp_path / "w.duckdb", pages)
    assert summary.exit_code == 0
    assert held and all(held) and len(held) == len(pages["azure"])
    runpod = {p.sha256 for p in pages["runpod"]}
    assert read and set(read) <= runpod  # only the second provider's pages were read back

    _same_marts_holding_nothing(tmp_path, monkeypatch, pages)


def _same_marts_holding_nothing(tmp_path, monkeypatch, pages) -> None:
    """A refresh of `pages` that holds no page publishes the marts `tmp_path/w.duckdb` has
    (the run's load ids aside)."""
    monkeypatch.setattr(RawStore, "_hold", lambda self, sha256, data, blob: None)  # none held
    again = refresh(tmp_path / "none.duckdb", pages)
    assert again.exit_code == 0
    for mart in MARTS:
        rows = [
            query(w, f"SELECT * FROM {mart}").select(pl.exclude("^.*load_id$")).sort(pl.all())
            for w in (tmp_path / "w.duckdb", tmp_path / "none.duckdb")
        ]
        assert rows[0].equals(rows[1]), mart


def test_a_stored_object_is_trusted_by_its_frame_and_compared_on_the_full_check(tmp_path):
    """Landing a page already stored reads its object's zstd headers, not its content: a
    cut, extended or missing object, or one of another length, is rewritten; a changed
    byte inside a whole frame is left to the full check (`compare`), which decompresses."""
    store = RawStore(tmp_path / "s")
    request = canonical_json({"region": "r"})
    data = orjson.dumps([{"price": i, "sku": f"sku-{i}"} for i in range(20_000)])
    sha = store.put_page(request, data)
    assert sha == Page("p", "e", None, {"region": "r"}, data=data).sha256  # the page's name
    obj = store.path(sha)
    whole = obj.read_bytes()
    assert len(whole) > 3 * 128  # several blocks: the walk steps over each
    other = zstandard.ZstdCompressor(level=1).compress(data.replace(b"sku-1", b"sku-9", 1))

    for damaged in (whole[:-5], whole + b"\0", whole[:8] + b"\0" * (len(whole) - 8), b""):
        obj.write_bytes(damaged)
        assert store.put(sha, data)  # rewritten from the bytes in hand
        assert obj.read_bytes() == whole
    obj.unlink()
    assert store.put(sha, data) and obj.read_bytes() == whole

    obj.write_bytes(other)  # a whole frame of the same length, one byte changed inside
    assert not store.put(sha, data)  # trusted: no decompression on an ordinary landing
    assert store.put(sha, data, compare=True)  # the full check compares: rewritten
    assert obj.read_bytes() == whole and not store.put(sha, data, compare=True)
    assert store.repaired == [sha] * 5  # the missing one was simply written


def test_a_page_that_is_not_utf8_is_refused_as_text(tmp_path):
    """`texts` checks the pages are UTF-8 once, for the whole column: a JSON page that is
    not fails there (Arrow's error), not later as garbled text."""
    import pyarrow as pa

    store = RawStore(tmp_path / "raw")
    good, bad = b'{"Items": []}', b'{"name": "caf\xe9"}'  # Latin-1, not UTF-8
    shas = [store.put_page("{}", good), store.put_page('{"p": 2}', bad)]
    assert store.texts(shas[:1], ["{}"]).to_pylist() == [good.decode()]
    with pytest.raises(pa.ArrowInvalid, match="UTF8"):
        store.texts(shas, ["{}", '{"p": 2}'])
