"""The raw store: every page's body bytes as received, beside the warehouse file.

    <warehouse>.raw/objects/<sha[:2]>/<sha>.zst      (or $GPU_PRICING_RAW_STORE/objects/...)
    <warehouse>.raw/packs/<name>.pack                (a large landing's objects: rawpack)

One zstd frame per distinct page (its object), named by the page's sha256 (request
identity + body bytes, `common.schemas.page_sha256`): a file of its own, or, past a
landing's first `rawpack.PACK_AFTER` new pages, one frame of the landing's pack (the same
bytes, found through the pack's index; warehouse.rawpack). Append-only and content-addressed: a page
whose object exists is not written again, an object is never modified, and a refresh never
copies the store (only the small analytics file is copied and published). Each object is
written to a temporary name and renamed into place, so a refresh killed at any moment
leaves whole objects or none; objects a failed refresh wrote are simply found (and reused)
by the next one. The ledger that says which page belongs to which load (`_loads`,
`_load_pages`) lives in the warehouse.

What is checked when:
- every read given the page's request (the ledger's `_load_pages.request`: a parse, `snapshot
  export`) checks that the object decompresses and that the request and bytes hash to the
  object's name, so a damaged object fails the provider that reads it (`DamagedObject`)
  instead of changing its prices silently (a page this process has just written and holds
  for its parse, `RawStore.keep`, is taken as held: its bytes were hashed as it was put);
- a landing that meets a page already stored checks that its object is one whole zstd frame
  of the page's length (`_whole`: its header and block headers, no decompression): a
  missing, cut or extended object is rewritten from the bytes just fetched. An unchanged
  page costs its hash and this look, not a decompression of its object;
- the full check (`refresh --full-check`, and the weekly refresh that `[schedule]
  full_check` names) has the landing decompress each stored object it meets and compare it
  with the bytes just fetched, so a changed byte inside an object is rewritten too;
- `gpu-pricing raw verify` (`verify`) decompresses and hashes every object the ledger names.

Why files per page for a small landing and a pack for a large one: a file needs no index
(an object's name is its address, so "already stored" is one `stat`), but each costs the
kernel an inode: 1,008 objects (a million AWS spot points) as files took ~0.4 s of system
CPU, as one pack 0.02 s. A pack is written whole or not at all, like a file (warehouse.rawpack),
and is idempotent too: a refresh retried after a crash finds the objects of the packs
that were finished, and writes the others again.
"""

from __future__ import annotations

import logging
import os
import threading
from array import array
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from itertools import accumulate
from pathlib import Path
from typing import TYPE_CHECKING

import zstandard

from common.errors import WarehouseError
from common.schemas import page_sha256
from warehouse import rawpack

if TYPE_CHECKING:
    import pyarrow as pa

log = logging.getLogger(__name__)

ENV_VAR = "GPU_PRICING_RAW_STORE"
# level 1: measured on the Azure shape it is both faster and smaller than the default 3
# (122 MB -> 5.2 MB in 0.10 s, against 7.2 MB in 0.16 s)
LEVEL = 1
_THREADS = max(2, min(8, os.cpu_count() or 2))
_local = threading.local()


def _compressor() -> zstandard.ZstdCompressor:
    c = getattr(_local, "c", None)
    if c is None:
        c = _local.c = zstandard.ZstdCompressor(level=LEVEL, write_content_size=True)
    return c


def _decompressor() -> zstandard.ZstdDecompressor:
    d = getattr(_local, "d", None)
    if d is None:
        d = _local.d = zstandard.ZstdDecompressor()
    return d


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _whole(blob: bytes, size: int) -> bool:
    """Whether `blob` is one whole zstd frame whose header states `size` bytes of content:
    the header read, then each block's 3-byte header stepped over to the last block (and
    the frame's checksum), which must end where the object ends. A missing tail, bytes
    appended or a damaged header fail; a changed byte inside a compressed block does not
    (that takes a decompression: `RawStore.put(compare=True)`, every read, `verify`).
    A few steps per object: a block holds up to 128 KiB of content."""
    try:
        if zstandard.frame_content_size(blob) != size:
            return False
        at = zstandard.frame_header_size(blob)
    except zstandard.ZstdError:
        return False
    checksum = 4 if blob[4] & 0x04 else 0  # the frame header descriptor's checksum flag
    while at + 3 <= len(blob):
        header = int.from_bytes(blob[at : at + 3], "little")
        kind, length = (header >> 1) & 3, header >> 3
        if kind == 3:  # reserved: not a block
            return False
        at += 3 + (1 if kind == 1 else length)  # an RLE block stores one byte
        if header & 1:  # the last block
            return at + checksum == len(blob)
    return False


class DamagedObject(WarehouseError):
    """A raw store object that is missing, does not decompress, or whose bytes do not hash
    to its name: the provider reading it fails alone and keeps its last good data."""

    def __init__(self, sha256: str, path: Path, cause: str) -> None:
        self.sha256, self.path, self.cause = sha256, path, cause
        super().__init__(f"raw store object {path} {cause}")


REPAIR = (
    "repair: a refresh with --full-check that fetches the page again rewrites the object, or "
    "replay a snapshot holding it (`gpu-pricing refresh --snapshot DIR --full-check`); "
    "`gpu-pricing raw verify` lists every damaged object"
)


def default_root(warehouse: Path) -> Path:
    """`$GPU_PRICING_RAW_STORE`, else `<warehouse file>.raw` beside the warehouse."""
    env = os.environ.get(ENV_VAR)
    if env:
        return Path(env)
    warehouse = Path(warehouse)
    return warehouse.with_name(warehouse.name + ".raw")


class RawStore:
    def __init__(self, root: Path) -> None:
        self.root = Path(root)
        self.objects = self.root / "objects"
        self.packs = self.root / "packs"
        self._new: list[Path] = []  # written by this process, not yet fsynced
        # the objects of the finished packs (read on the first look for one) and of the
        # pack being written: sha256 -> (pack, offset, length)
        self._packed: dict[str, tuple[rawpack.Pack, int, int]] | None = None
        self._writing: rawpack.Writing | None = None
        self._written_now = 0  # new objects of this landing: past PACK_AFTER, packed
        self._packs_finished = False  # a pack finished since the last `sync`
        self._pack_lock = threading.RLock()
        self._folders: set[Path] = set()  # object folders known to exist
        self.written_bytes = 0  # compressed bytes written by this process
        self.repaired: list[str] = []  # damaged objects this process rewrote
        # the bytes of pages this process wrote, held for the parse that follows (`keep`):
        # as they are, or as their compressed objects (`compressed`)
        self._kept: dict[str, bytes] = {}  # sha256 -> the page, or its object (`compressed`)
        self._keep_left = 0
        self._keep_compressed = False
        self._keep_lock = threading.Lock()

    @classmethod
    def beside(cls, warehouse: Path) -> RawStore:
        return cls(default_root(warehouse))

    def path(self, sha256: str) -> Path:
        return self.objects / sha256[:2] / f"{sha256}.zst"

    def has(self, sha256: str) -> bool:
        return self.path(sha256).exists() or sha256 in self._index()

    def _index(self) -> dict[str, tuple[rawpack.Pack, int, int]]:
        """The packed objects (every finished pack's index read once per process)."""
        with self._pack_lock:
            if self._packed is None:
                found: dict[str, tuple[rawpack.Pack, int, int]] = {}
                if self.packs.is_dir():
                    for pack in sorted(self.packs.glob("*.pack")):
                        found.update(rawpack.read_index(pack))
                self._packed = found
            return self._packed

    def _stored(self, sha256: str) -> bytes | None:
        """An object's bytes as stored: its own file's, else its frame in a pack; None when
        neither holds it."""
        try:
            return self.path(sha256).read_bytes()
        except (FileNotFoundError, NotADirectoryError):
            pass
        where = self._index().get(sha256)
        return None if where is None else rawpack.read_frame(*where)

    def where(self, sha256: str) -> Path:
        """The file an object is in (for messages): its own, or its pack."""
        own = self.path(sha256)
        packed = None if own.exists() else self._index().get(sha256)
        return own if packed is None else packed[0].path

    def _damaged(self, sha256: str, cause: str) -> DamagedObject:
        """The error for an object that failed, naming the file it is in (looked up only
        now: a read that succeeds asks the file system nothing more)."""
        return DamagedObject(sha256, self.where(sha256), cause)

    def keep(self, limit_bytes: int, *, compressed: bool = False) -> None:
        """Hold the bytes of the pages written from now on (`put(keep=True)`), up to
        `limit_bytes` in all, for `texts` to take instead of reading their objects back: a
        refresh parses the pages it has just landed, and their bytes were hashed to their
        names as they were put (no read, decompression or hash again: ~0.3 s CPU per
        million AWS spot points). With `compressed`, each page is held as the object just
        written (a few % of its bytes: ~25 MB for a million Azure items, where the pages
        themselves would add ~600 MB to a refresh's peak): `texts` then only decompresses
        it, from memory (no file read, no hash again: ~0.8 s CPU per million Azure items).
        `keep(0)` stops and drops what is held, and so does a keep of the other kind. A page
        already stored is not held: an unchanged refresh parses nothing and holds nothing."""
        with self._keep_lock:
            if not limit_bytes or compressed != self._keep_compressed:
                self._kept.clear()  # what is held is of one kind: `texts` reads it as such
            self._keep_left = limit_bytes
            self._keep_compressed = compressed

    def _hold(self, sha256: str, data: bytes, blob: bytes) -> None:
        """Hold a page just written: `data`, or its object `blob` (`keep(compressed=True)`)."""
        with self._keep_lock:
            held = blob if self._keep_compressed else data
            if len(held) <= self._keep_left:
                self._kept[sha256] = held
                self._keep_left -= len(held)

    def holds_whole(self, sha256: str, size: int) -> bool:
        """Whether the object of a page of `size` bytes is stored, one whole zstd frame of
        that length (`_whole`): what `put` trusts of a page already stored."""
        blob = self._stored(sha256)
        return blob is not None and _whole(blob, size)

    def put(self, sha256: str, data: bytes, *, compare: bool = False, keep: bool = False) -> bool:
        """Store one page's bytes under its sha256; False if already stored. A stored
        object is trusted when it is one whole zstd frame stating the page's length
        (`_whole`: a header and a block walk, no decompression); with `compare` (the full
        check) it must decompress to `data`. An object that fails is rewritten from `data`.
        `keep`: a page written now is held for `texts` (within the limit `keep` set)."""
        target = self.path(sha256)
        blob = self._stored(sha256)
        repair = blob is not None
        if repair:
            if self._holds(blob, data) if compare else _whole(blob, len(data)):
                return False
            # the page was fetched again: its bytes replace a damaged object (as a file of
            # its own, which reads prefer to a pack's frame)
            log.warning(
                "raw store: object %s was damaged; rewritten from the page fetched",
                self.where(sha256),
            )
            self.repaired.append(sha256)
        blob = _compressor().compress(data)
        if not repair and self._pack(sha256, blob):
            self.written_bytes += len(blob)
            if keep:
                self._hold(sha256, data, blob)
            return True
        if target.parent not in self._folders:  # one mkdir per folder, not per object
            target.parent.mkdir(parents=True, exist_ok=True)
            self._folders.add(target.parent)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            with tmp.open("wb") as fh:
                fh.write(blob)
            os.replace(tmp, target)  # whole or absent, whatever kills us
        except BaseException:
            tmp.unlink(missing_ok=True)  # a full disk: the partial object holds no space
            raise
        self._new.append(target)
        self.written_bytes += len(blob)
        if keep:
            self._hold(sha256, data, blob)
        return True

    def _pack(self, sha256: str, blob: bytes) -> bool:
        """Append a new object to this landing's pack, once the landing has written
        `PACK_AFTER` objects as files; False for one of those (the caller writes it)."""
        with self._pack_lock:
            self._written_now += 1
            if self._written_now <= rawpack.PACK_AFTER:
                return False
            index = self._index()  # read before this pack's objects join it
            if self._writing is None:
                self._writing = rawpack.Writing.open(self.packs)
            offset, length = self._writing.append(sha256, blob)
            index[sha256] = (self._writing.pack, offset, length)
            return True

    def put_page(
        self, request: str, data: bytes, *, compare: bool = False, keep: bool = False
    ) -> str:
        """Name a page (`page_sha256` of its request and bytes) and `put` it: the hash and
        the object check release the GIL, so a landing runs this on workers. Returns the
        page's sha256."""
        sha256 = page_sha256(request, data)
        self.put(sha256, data, compare=compare, keep=keep)
        return sha256

    @staticmethod
    def _holds(blob: bytes, data: bytes) -> bool:
        """Whether a stored object decompresses to `data` (the bytes are in hand: one
        decompression and a compare, no hash)."""
        try:
            return _decompressor().decompress(blob) == data
        except zstandard.ZstdError:
            return False

    def get(self, sha256: str, request: str | None = None) -> bytes:
        """A page's bytes. With its `request` (canonical JSON, the ledger's), checked: the
        request and bytes must hash to the object's name (`DamagedObject` otherwise)."""
        return self._decompress(sha256, self._read(sha256), request)

    def _read(self, sha256: str) -> bytes:
        """An object's compressed bytes (`DamagedObject` when it is missing)."""
        blob = self._stored(sha256)
        if blob is None:
            raise self._damaged(
                sha256, "is missing (the store must travel with the warehouse file)"
            )
        return blob

    def _decompress(self, sha256: str, blob: bytes, request: str | None) -> bytes:
        try:
            data = _decompressor().decompress(blob)
        except zstandard.ZstdError as exc:
            raise self._damaged(sha256, f"does not decompress ({exc})") from None
        if request is not None and page_sha256(request, data) != sha256:
            raise self._damaged(sha256, "is damaged: its bytes do not hash to its name")
        return data

    def _size(self, sha256: str, blob: bytes) -> int:
        """The page's length as its object's frame header states it (every object is
        written with it; one without has it measured by a decompression)."""
        try:
            size = zstandard.frame_content_size(blob)
        except zstandard.ZstdError as exc:
            raise self._damaged(sha256, f"does not decompress ({exc})") from None
        return size if size >= 0 else len(self._decompress(sha256, blob, None))

    def get_many(
        self, shas: Iterable[str], requests: Iterable[str | None] | None = None
    ) -> list[bytes]:
        """Several pages, decompressed (and checked, given their requests) on a few threads
        (zstd and sha256 release the GIL)."""
        shas = list(shas)
        reqs = list(requests) if requests is not None else [None] * len(shas)
        if len(shas) < 4:
            return [self.get(s, r) for s, r in zip(shas, reqs, strict=True)]
        with ThreadPoolExecutor(_THREADS) as pool:
            return list(pool.map(self.get, shas, reqs))

    def verify(self, pages: Iterable[tuple[str, str | None]]) -> list[DamagedObject]:
        """Check the objects of (sha256, request) pairs: every problem found, none raised."""

        def check(page: tuple[str, str | None]) -> DamagedObject | None:
            try:
                self.get(*page)
            except DamagedObject as exc:
                return exc
            return None

        with ThreadPoolExecutor(_THREADS) as pool:
            return [p for p in pool.map(check, pages) if p is not None]

    def texts(self, shas: Iterable[str], requests: Iterable[str | None] | None = None) -> pa.Array:
        """Pages as one Arrow text column (UTF-8 checked once, no Python str per page);
        checked against their names when their requests are given. Each page is
        decompressed and checked on a worker and copied into its place in one buffer, sized
        from the objects' frame headers: no single-threaded join of every page afterwards
        (~0.35 s CPU per million Azure items, measured). A page held since it was written
        (`keep`) is taken as held (and let go), its object not read, its name not checked
        again: as it is, or decompressed when held compressed."""
        import pyarrow as pa

        shas = list(shas)
        reqs = list(requests) if requests is not None else [None] * len(shas)
        with self._keep_lock:
            kept = [self._kept.pop(s, None) for s in shas]
            compressed = self._keep_compressed
        # a page held as it is; else its object, held (its name not checked again) or read
        held = [None if compressed else k for k in kept]
        reqs = [None if k is not None else r for k, r in zip(kept, reqs, strict=True)]

        def read(i: int) -> bytes | None:
            blob, kept[i] = kept[i], None
            if blob is not None:
                return blob if compressed else None
            return self._read(shas[i])

        with ThreadPoolExecutor(_THREADS) as pool:
            blobs = list(pool.map(read, range(len(shas))))  # compressed: a few % of the pages
            sizes = [
                self._size(s, b) if h is None else len(h)
                for s, b, h in zip(shas, blobs, held, strict=True)
            ]
            offsets = array("q", [0, *accumulate(sizes)])
            data = bytearray(offsets[-1])
            view = memoryview(data)

            def place(i: int) -> None:
                page = held[i]
                if page is None:
                    page = self._decompress(shas[i], blobs[i], reqs[i])
                held[i] = blobs[i] = None  # let go as it is copied
                if len(page) != sizes[i]:
                    raise self._damaged(shas[i], "is damaged: its frame misstates its length")
                view[offsets[i] : offsets[i + 1]] = page

            list(pool.map(place, range(len(shas))))
        text = pa.LargeStringArray.from_buffers(
            len(shas), pa.py_buffer(offsets), pa.py_buffer(data)
        )
        # UTF-8 checked (ArrowInvalid) as a cast from binary would, without the cast's
        # pyarrow.compute (warehouse.raw.with_payloads keeps it unloaded)
        text.validate(full=True)
        return text

    def end_landing(self) -> None:
        """Finish the pack a landing was writing (written whole, fsynced and renamed into
        place: rawpack.Writing.finish) and count the objects written as files from zero
        again: each provider's landing packs its own. Its files and folders are fsynced
        by `sync`."""
        with self._pack_lock:
            writing, self._writing, self._written_now = self._writing, None, 0
        if writing is not None:
            writing.finish()
            self._packs_finished = True

    def sync(self) -> None:
        """fsync every object this process wrote, and their folders, and finish the pack
        being written (`end_landing`): called before the ledger that names them is
        published."""
        self.end_landing()
        folders: set[Path] = {self.packs, self.root} if self._packs_finished else set()
        self._packs_finished = False
        if not self._new and not folders:
            return
        folders |= {p.parent for p in self._new}
        with ThreadPoolExecutor(_THREADS) as pool:  # the journal commits them together
            list(pool.map(_fsync, self._new))
            list(pool.map(_fsync, [*folders, *([self.objects] if self._new else [])]))
        self._new.clear()

    def discard_partial(self) -> int:
        """Remove temporary files a killed writer left (never visible as objects). Call
        only under the refresh lock, when no other writer can be mid-write."""
        stale = list(self.objects.glob("*/.*.tmp")) if self.objects.is_dir() else []
        stale += list(self.packs.glob(".*.tmp")) if self.packs.is_dir() else []
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def size_bytes(self) -> int:
        packs = self.packs.glob("*.pack") if self.packs.is_dir() else []
        return sum(p.stat().st_size for p in [*self.iter_objects(), *packs])

    def iter_objects(self) -> Iterator[Path]:
        """The objects stored as files of their own (`names` also has the packed ones)."""
        if self.objects.is_dir():
            yield from self.objects.glob("*/*.zst")

    def names(self) -> set[str]:
        """The sha256 of every object stored, as a file or in a pack."""
        return {p.name.removesuffix(".zst") for p in self.iter_objects()} | set(self._index())
