"""Packs of the raw store: a large landing's objects in one file instead of one file each.

    <raw store>/packs/<UTC time>-<pid>-<random>.pack

A pack is the objects' zstd frames one after the other (each frame byte for byte the
object a file of its own would hold), then its index, then a 16-byte trailer:

    frame, frame, ...
    index: one line per object, `<sha256> <offset> <length>\\n` (ASCII)
    trailer: the index's length in bytes (8, little-endian), then b"gpupack1"

Why: creating a file costs the kernel an inode (and the object folders their own), which
made most of the system time of a large landing: 1,008 objects of a million AWS spot
points as files ~0.4 s of system CPU, as one pack 0.02 s (measured, one process writing
and fsyncing either). A landing's first `PACK_AFTER` new objects are still files of their
own (a small night's landing adds no pack: the store's packs stay few, each read once per
process, its index only); the rest go into one pack, finished when the landing syncs
(`RawStore.sync`).

Whole or absent, as an object file is: the pack is written under a temporary name
(`.<name>.tmp`, which `RawStore.discard_partial` removes after a kill), fsynced and
renamed into place before the ledger that names its pages is published. A pack is never
modified; an object of a pack found damaged is rewritten as a file of its own, which reads
prefer. A pack whose trailer or index does not read is ignored with a warning: its pages
are then missing, which the reads report (`DamagedObject`) and a landing of the same page
repairs.
"""

from __future__ import annotations

import logging
import os
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

log = logging.getLogger(__name__)

PACK_AFTER = 64  # new objects a landing writes as files before it starts a pack
MAGIC = b"gpupack1"
TRAILER = 16


@dataclass
class Pack:
    """One pack file: where it is now (its temporary name while it is written)."""

    path: Path


@dataclass
class Writing:
    """The pack this process is writing: frames appended as they come (from the landing's
    workers, under the store's lock), its index written and the file renamed by `finish`."""

    pack: Pack
    final: Path
    fd: int
    size: int = 0
    lines: list[bytes] = field(default_factory=list)

    @classmethod
    def open(cls, folder: Path) -> Writing:
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{datetime.now(UTC):%Y%m%dT%H%M%S.%fZ}-{os.getpid()}-{uuid.uuid4().hex[:8]}.pack"
        tmp = folder / f".{name}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        return cls(Pack(tmp), folder / name, fd)

    def append(self, sha256: str, blob: bytes) -> tuple[int, int]:
        """Write one frame; its (offset, length) in the pack."""
        offset = self.size
        _write_all(self.fd, blob)
        self.size += len(blob)
        self.lines.append(f"{sha256} {offset} {len(blob)}\n".encode())
        return offset, len(blob)

    def finish(self) -> None:
        """Index and trailer written, the file fsynced and renamed into place (the caller
        fsyncs the folder)."""
        index = b"".join(self.lines)
        try:
            _write_all(self.fd, index + len(index).to_bytes(8, "little") + MAGIC)
            os.fsync(self.fd)
        finally:
            os.close(self.fd)
        # whole or absent, whatever kills us; and, for a parse reading the pack while the
        # landing syncs (warehouse.parse_ahead), under `pack.path` at every moment: the
        # final name is linked before the temporary one goes (`read_frame` looks again)
        tmp = self.pack.path
        try:
            os.link(tmp, self.final)
        except OSError:  # a file system without hard links
            os.replace(tmp, self.final)
            self.pack.path = self.final
            return
        self.pack.path = self.final
        tmp.unlink()

    def abandon(self) -> None:
        os.close(self.fd)
        self.pack.path.unlink(missing_ok=True)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def read_index(path: Path) -> dict[str, tuple[Pack, int, int]]:
    """A finished pack's objects: sha256 -> (pack, offset, length); empty, with a warning,
    when its trailer or index does not read."""
    pack = Pack(path)
    try:
        with path.open("rb") as fh:
            size = fh.seek(0, os.SEEK_END)
            if size < TRAILER:
                raise ValueError("shorter than its trailer")
            fh.seek(size - TRAILER)
            trailer = fh.read(TRAILER)
            if trailer[8:] != MAGIC:
                raise ValueError("no pack trailer")
            length = int.from_bytes(trailer[:8], "little")
            frames = size - TRAILER - length
            if length < 0 or frames < 0:
                raise ValueError("its index length is out of the file")
            fh.seek(frames)
            text = fh.read(length).decode("ascii")
        found: dict[str, tuple[Pack, int, int]] = {}
        for line in text.splitlines():
            sha256, offset, n = line.split(" ")
            at, n_bytes = int(offset), int(n)
            if len(sha256) != 64 or at < 0 or n_bytes <= 0 or at + n_bytes > frames:
                raise ValueError(f"index line {line!r} is out of the pack")
            found[sha256] = (pack, at, n_bytes)
        return found
    except (OSError, ValueError, UnicodeDecodeError) as exc:
        log.warning(
            "raw store pack %s is not readable (%s): its objects count as missing", path, exc
        )
        return {}


def read_frame(pack: Pack, offset: int, length: int) -> bytes | None:
    """An object's frame as the pack holds it (shorter when the file was cut); None when
    the pack is gone. A pack renamed into place (`Writing.finish`) between the look at its
    name and the open is read under its new name."""
    while True:
        path = pack.path
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            if pack.path == path:
                return None
            continue
        try:
            return os.pread(fd, length, offset)
        finally:
            os.close(fd)
