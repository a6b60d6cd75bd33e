"""The raw store: every page's body bytes as received, beside the warehouse file.

    <warehouse>.raw/objects/<sha[:2]>/<sha>.zst      (or $GPU_PRICING_RAW_STORE/objects/...)

One zstd-compressed file per distinct page, named by the page's sha256 (request identity +
body bytes, `connectors.kit.page.Page.sha256`). Append-only and content-addressed: a page
whose object exists is not written again, an object is never modified, and a refresh never
copies the store (only the small analytics file is copied and published). Each object is
written to a temporary name and renamed into place, so a refresh killed at any moment
leaves whole objects or none; objects a failed refresh wrote are simply found (and reused)
by the next one. The ledger that says which page belongs to which load (`_loads`,
`_load_pages`) lives in the warehouse.

Why one file per page rather than one segment file per load: measured on 200 pages of
the real Azure shape (122 MB), writing objects costs 0.03 s (+0.08 s to fsync them all)
against 0.01 s for one segment, and reading them back 0.10 s against 0.03 s: both are
small next to parsing. Files per page need no index (an object's name is its address, so
"already stored" is one `stat`), are idempotent when a refresh is retried after a crash,
and never leave a half-used segment behind.
"""

from __future__ import annotations

import os
import threading
from array import array
from collections.abc import Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from itertools import accumulate
from pathlib import Path

import pyarrow as pa
import zstandard

from warehouse.errors import WarehouseError

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
        self._new: list[Path] = []  # written by this process, not yet fsynced
        self.written_bytes = 0  # compressed bytes written by this process

    @classmethod
    def beside(cls, warehouse: Path) -> RawStore:
        return cls(default_root(warehouse))

    def path(self, sha256: str) -> Path:
        return self.objects / sha256[:2] / f"{sha256}.zst"

    def has(self, sha256: str) -> bool:
        return self.path(sha256).exists()

    def put(self, sha256: str, data: bytes) -> bool:
        """Store one page's bytes under its sha256; False if already stored."""
        target = self.path(sha256)
        if target.exists():
            return False
        target.parent.mkdir(parents=True, exist_ok=True)
        blob = _compressor().compress(data)
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
        return True

    def get(self, sha256: str) -> bytes:
        try:
            blob = self.path(sha256).read_bytes()
        except FileNotFoundError:
            raise WarehouseError(
                f"raw store {self.root}: page {sha256} is missing (the store must travel "
                "with the warehouse file)"
            ) from None
        return _decompressor().decompress(blob)

    def get_many(self, shas: Iterable[str]) -> list[bytes]:
        """Several pages, decompressed on a few threads (zstd releases the GIL)."""
        shas = list(shas)
        if len(shas) < 4:
            return [self.get(s) for s in shas]
        with ThreadPoolExecutor(_THREADS) as pool:
            return list(pool.map(self.get, shas))

    def texts(self, shas: Iterable[str]) -> pa.Array:
        """Pages as one Arrow text column (UTF-8 checked once, no Python str per page)."""
        blobs = self.get_many(shas)
        # one copy into one buffer: pa.array over a list of bytes costs 10x more
        offsets = array("q", [0, *accumulate(map(len, blobs))])
        data = pa.py_buffer(b"".join(blobs))
        del blobs
        binary = pa.LargeBinaryArray.from_buffers(
            pa.large_binary(), len(offsets) - 1, [None, pa.py_buffer(offsets), data]
        )
        return binary.cast(pa.large_string())  # checks UTF-8

    def sync(self) -> None:
        """fsync every object this process wrote, and their folders: called before the
        ledger that names them is published."""
        if not self._new:
            return
        folders = {p.parent for p in self._new}
        with ThreadPoolExecutor(_THREADS) as pool:  # the journal commits them together
            list(pool.map(_fsync, self._new))
            list(pool.map(_fsync, [*folders, self.objects]))
        self._new.clear()

    def put_async(self, pool: ThreadPoolExecutor, sha256: str, data: bytes) -> Future[bool]:
        """`put` on a worker thread (compression releases the GIL)."""
        return pool.submit(self.put, sha256, data)

    def discard_partial(self) -> int:
        """Remove temporary files a killed writer left (never visible as objects). Call
        only under the refresh lock, when no other writer can be mid-write."""
        stale = list(self.objects.glob("*/.*.tmp")) if self.objects.is_dir() else []
        for p in stale:
            p.unlink(missing_ok=True)
        return len(stale)

    def size_bytes(self) -> int:
        return sum(p.stat().st_size for p in self.iter_objects())

    def iter_objects(self) -> Iterator[Path]:
        if self.objects.is_dir():
            yield from self.objects.glob("*/*.zst")
