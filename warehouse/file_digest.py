"""One sha256 over files' names and bytes: how a refresh tells whether the code, SQL or seeds
something was made from changed (a connector's parsing code, the SQL project, the staged
tables' declarations; warehouse.staging, warehouse.sql_cache, flows.pipeline).

A refresh asks for the same digests several times (the SQL project's ~10 times, a
connector's twice), so each answer is kept in the process while every file is as it was
hashed: same path, size, inode and time. Contents decide all the same: a file changed
within `RACY_NS` of the hash (inside a timestamp's granularity, where an edit of the same
size may keep its time) is not trusted by its stat, and is hashed again on the next call.
"""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Sequence
from pathlib import Path

RACY_NS = 2_000_000_000
_known: dict[tuple, str] = {}


def files_digest(files: Sequence[Path], root: Path | None = None, head: bytes = b"") -> str:
    """sha256 of `head`, then of each file in the order given: its name (relative to `root`,
    else as given, in POSIX form), a NUL, its bytes."""
    stats = [os.stat(f) for f in files]
    state = (
        head,
        None if root is None else str(root),
        tuple(
            (str(f), s.st_size, s.st_ino, s.st_mtime_ns) for f, s in zip(files, stats, strict=True)
        ),
    )
    if state in _known:
        return _known[state]
    h = hashlib.sha256(head)
    for f in files:
        name = (f.relative_to(root) if root is not None else f).as_posix()
        h.update(name.encode() + b"\0" + f.read_bytes())
    digest = h.hexdigest()
    if time.time_ns() - max((s.st_mtime_ns for s in stats), default=0) > RACY_NS:
        _known[state] = digest
    return digest
