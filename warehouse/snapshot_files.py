"""Snapshot files already landed, known again by their stat: a replay that finds a page file
as it was when it was last read takes the page's sha256 from the record instead of reading
and hashing the file again (the unchanged replay of a million Azure items reads 586 MB
otherwise).

    <raw store>/snapshot-files/<digest of the snapshot folder and provider>.json

One record per page file of the last replay of that folder and provider: the file's
path, size, mtime, ctime, inode and device as `os.stat` gave them before it was read, and
what the landing takes from the file (its envelope: fetched_at, request, source_url,
provenance; the body's length and the page's sha256). As git's index and make do, a file
whose stat is as recorded is taken as unchanged; any doubt means the file is read and
hashed:
- a record is written only for a file whose mtime and ctime were at least RACY_MARGIN_NS
  older than the moment it was read (git's "racily clean" entries): a file changed in
  the same clock tick as the read, keeping its mtime and size, is hashed again rather
  than trusted; so is a file whose stat changed while it was read;
- an edit that keeps the size and restores the mtime (`touch -d`) still moves the ctime,
  which no user call sets: the file is read again. Copying a file in gives it another
  inode;
- a record made by other code (`reader_digest`: the snapshot reader, the page's naming and
  this module) is not used, nor any record while the process holds a credential value
  (the stored bytes are then the body with any such value masked, which only a read can
  tell), nor during a full check (`refresh --full-check` reads, hashes and compares every
  page: the way to force it);
- the page's object must be in the store, whole and of the recorded length (the check a
  landed page gets, `RawStore.holds_whole`), else the file is read and the object written.

The records are facts about files, true whatever became of the refresh that made them: a
file is replaced whole (a temporary name renamed into place) after the landing's objects
are synced, so a refresh killed at any moment leaves the old records, the new ones or
none, and a lost or stale record only costs a read and a hash, never a wrong sha256. They
are a cache: deleting the folder is always safe.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import time
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

from common import schemas
from common.redact import credential_values
from connectors.kit import page as kit_page
from connectors.kit import provenance as stated
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import Page, scope_of
from warehouse.rawstore import RawStore

# a file changed this close to (or after) the moment it was read is not recorded: covers
# the coarsest file-system timestamps (FAT's 2 s) and the kernel's coarse clock
RACY_MARGIN_NS = 2_000_000_000
log = logging.getLogger(__name__)
FOLDER = "snapshot-files"


@dataclass(frozen=True)
class RecordedPage:
    """A snapshot page whose file is as its record says: landed by its recorded sha256 and
    envelope, its body not read (the store holds its object whole)."""

    provider: str
    endpoint: str
    fetched_at: datetime
    request: dict[str, Any]
    source_url: str | None
    provenance: dict[str, Any] | None
    sha256: str
    size: int  # the body's bytes, as the ledger's `bytes` counts them
    format: str = "json"

    @property
    def scope(self) -> str:
        return scope_of(self.request)


@cache  # the code does not change while the process runs
def reader_digest() -> str:
    """A digest of the code a record stands for: how a snapshot file is read and split
    (with the JSON library that re-encodes a body laid out otherwise), how its provenance
    statement is checked, how a page is named, and this module."""
    h = hashlib.sha256(kit_snapshot.JSON_LIBRARY.encode())
    for source in (kit_snapshot.__file__, kit_page.__file__, stated.__file__, schemas.__file__,
                   __file__):  # fmt: skip
        h.update(Path(source).read_bytes())
    return h.hexdigest()


def _stat(st: os.stat_result) -> list[int]:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev]


class SnapshotFiles:
    """The records of one provider's files in one snapshot folder: read once (`lookup`
    per file, from the readers' threads), and written back (`save`) after the landing."""

    def __init__(self, store: RawStore, root: Path, provider: str, *, reuse: bool) -> None:
        self.store = store
        self.root = Path(root)  # the files' names are relative to it
        key = hashlib.sha256(f"{self.root.resolve()}\0{provider}".encode()).hexdigest()[:32]
        self.path = store.root / FOLDER / f"{key}.json"
        self.provider = provider
        self.digest = reader_digest()
        self._old: dict[str, dict[str, Any]] = self._load() if reuse else {}
        self._new: dict[str, dict[str, Any]] = {}
        self._pending: list[tuple[str, dict[str, Any], list[str]]] = []

    def _load(self) -> dict[str, dict[str, Any]]:
        if credential_values():  # the stored bytes may be masked: only a read tells
            return {}
        try:
            doc = json.loads(self.path.read_bytes())
        except (OSError, ValueError):
            return {}
        if not isinstance(doc, dict) or doc.get("reader") != self.digest:
            return {}
        files = doc.get("files")
        return files if isinstance(files, dict) else {}

    def read(self, endpoint: str, path: Path) -> Page | RecordedPage:
        """The page of one file: from its record when the file is as recorded and its
        object whole in the store, else read (and its record noted for `save`)."""
        name = path.relative_to(self.root).as_posix()
        before = time.time_ns()
        st = os.stat(path)
        record = self._old.get(name)
        if record is not None and record.get("stat") == _stat(st):
            try:
                page = RecordedPage(
                    self.provider,
                    endpoint,
                    datetime.fromisoformat(record["fetched_at"]),
                    record["request"],
                    record["source_url"],
                    record["provenance"],
                    record["sha256"],
                    int(record["size"]),
                )
            except (KeyError, TypeError, ValueError):
                page = None  # a record of another shape: read the file
            if page is not None and self.store.holds_whole(page.sha256, page.size):
                self._new[name] = record
                return page
        page = kit_snapshot.read_page(self.provider, endpoint, path)
        after = os.stat(path)
        safe = (
            page.data is not None  # a JSON page (a file endpoint's page is read each time)
            and _stat(after) == _stat(st)
            and max(st.st_mtime_ns, st.st_ctime_ns) < before - RACY_MARGIN_NS
        )
        if safe:
            entry = {
                "stat": _stat(st),
                "fetched_at": page.fetched_at.isoformat(),
                "request": page.request,
                "source_url": page.source_url,
                "provenance": page.provenance,
                "size": len(page.data),
            }
            # the sha256 comes from the landing, which names the page as it stores it
            self._pending.append((name, entry, page.sha_cell))
        return page

    def save(self) -> None:
        """Write the records of this replay's files (those read or reused), after the
        landing stored and synced their objects. A page whose landing masked a credential
        value in it, or that was not landed, is left out (read again next time)."""
        if credential_values():
            self._pending.clear()
        for name, entry, landed in self._pending:
            if landed:
                self._new[name] = {**entry, "sha256": landed[0]}
        self._pending.clear()
        if self._new == self._old:  # the same records (or none, and none read)
            return
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        try:
            text = json.dumps({"reader": self.digest, "files": self._new}, sort_keys=True)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp.write_text(text, encoding="utf-8")
            os.replace(tmp, self.path)  # whole or absent, whatever kills us
        except (OSError, TypeError, ValueError) as exc:
            # a cache: the refresh stands without it (the files are read next time)
            tmp.unlink(missing_ok=True)
            log.warning("snapshot file records not written to %s: %s", self.path, exc)
