"""The snapshot format (docs/contract.md §2): recorded raw responses on disk, replayed through the
same landing and parse path as live data.

    DIR/<provider>/<endpoint>/<name>.json      {"fetched_at", "request", "body"}
                                               (+ optional "source_url", "provenance")
    DIR/<provider>/<endpoint>/<name>.csv       a file endpoint, byte for byte,
    DIR/<provider>/<endpoint>/<name>.csv.json  with its sidecar {"fetched_at", "request"}
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from datetime import UTC, datetime
from pathlib import Path

import orjson

from common.errors import InvalidInput
from connectors.kit import provenance as stated
from connectors.kit.page import Page, dumps

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo_snapshot"
# what re-encodes the body of a file laid out otherwise (`read_page`): a page read from a
# file depends on it as on this module (warehouse.snapshot_files)
JSON_LIBRARY = f"orjson {orjson.__version__}"


def resolve(snapshot: str | Path) -> Path:
    path = DEMO_DIR if str(snapshot) == "demo" else Path(snapshot)
    if not path.is_dir():
        raise InvalidInput(f"snapshot {snapshot!s}: no such directory")
    return path


def _parse_time(value: object, where: Path) -> datetime:
    if not isinstance(value, str):
        raise InvalidInput(
            f"snapshot file {where}: fetched_at must be an ISO 8601 string, got {value!r}"
        )
    try:
        parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError as exc:
        raise InvalidInput(f"snapshot file {where}: fetched_at {value!r} is not ISO 8601") from exc
    if parsed.tzinfo is not None:
        parsed = parsed.astimezone(UTC).replace(tzinfo=None)
    return parsed


def _load_json(path: Path) -> dict:
    try:
        doc = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError) as exc:
        raise InvalidInput(f"snapshot file {path}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict):
        raise InvalidInput(
            f"snapshot file {path}: expected a JSON object, got {type(doc).__name__}"
        )
    return doc


_BODY_KEY = b'"body"'
_CLOSING = {ord("{"): ord("}"), ord("["): ord("]")}
_WS = b" \t\r\n"


def _split(raw: bytes) -> tuple[dict, bytes] | None:
    """The envelope's other keys and the body's bytes exactly as in the file, without
    decoding the body: when `body` is the last key (as `write_pages` and every recorder
    writes it), the head before it is decoded alone and the body is the rest up to the
    closing brace. None when the file is laid out otherwise (then it is decoded whole).
    The body is found by its offsets and copied once (a page is hundreds of KB: each
    strip of a slice would copy it again)."""
    at = raw.find(_BODY_KEY)
    if at < 0:
        return None
    head = raw[:at].rstrip(_WS)
    colon = _skip_ws(raw, at + len(_BODY_KEY), 1)
    if not head.endswith((b"{", b",")) or raw[colon : colon + 1] != b":":
        return None
    start = _skip_ws(raw, colon + 1, 1)
    end = _skip_ws(raw, len(raw) - 1, -1)  # the envelope's closing brace
    if end <= start or raw[end] != ord("}"):
        return None
    end = _skip_ws(raw, end - 1, -1)  # the body's last byte
    # an object or array body that ends where the envelope ends: no key can follow it
    if end < start or _CLOSING.get(raw[start]) != raw[end]:
        return None
    try:
        meta = orjson.loads(head[:-1] + b"}" if head.endswith(b",") else b"{}")
    except orjson.JSONDecodeError:
        return None  # "body" was not a key of the envelope itself
    if not isinstance(meta, dict) or not {"fetched_at", "request"} <= meta.keys():
        return None
    return meta, raw[start : end + 1]


def _skip_ws(raw: bytes, at: int, step: int) -> int:
    """The first offset from `at` (walking by `step`) that is not JSON whitespace."""
    while 0 <= at < len(raw) and raw[at] in _WS:
        at += step
    return at


def read_provider(root: Path, provider: str) -> Iterator[Page]:
    """Yield the pages recorded for one provider, endpoint by endpoint, in file-name order."""
    for endpoint, path in provider_files(root, provider):
        yield read_page(provider, endpoint, path)


def provider_files(root: Path, provider: str) -> Iterator[tuple[str, Path]]:
    """(endpoint, file) of each page recorded for one provider, in the order `read_provider`
    yields them (a file read by `read_page`)."""
    base = root / provider
    if not base.is_dir():
        return
    for endpoint_dir in sorted(p for p in base.iterdir() if p.is_dir()):
        for path in sorted(endpoint_dir.iterdir(), key=lambda p: _natural(p.name)):
            if path.name.endswith(".csv.json") or path.name.startswith((".", "_")):
                continue
            if path.suffix in (".json", ".csv"):
                yield endpoint_dir.name, path


def read_page(provider: str, endpoint: str, path: Path) -> Page:
    """One recorded page (a file of `provider_files`)."""
    if path.suffix == ".json":
        # the body's bytes as in the file: hashed and stored as read, not decoded
        # and re-encoded (a hand-laid-out file is decoded whole instead)
        raw = path.read_bytes()
        split = _split(raw)
        if split is None:
            doc = _load_json(path)
            missing = {"fetched_at", "request", "body"} - doc.keys()
            if missing:
                raise InvalidInput(f"snapshot file {path}: missing key(s) {sorted(missing)}")
            split = doc, dumps(doc["body"]).encode()
        doc, data = split
        if not isinstance(doc["request"], dict):
            raise InvalidInput(f"snapshot file {path}: request must be a JSON object")
        return Page(
            provider=provider,
            endpoint=endpoint,
            fetched_at=_parse_time(doc["fetched_at"], path),
            request=doc["request"],
            data=data,
            source_url=doc.get("source_url"),
            provenance=stated.check(doc.get("provenance"), path),
        )
    sidecar = path.with_name(path.name + ".json")
    if not sidecar.exists():
        raise InvalidInput(f"snapshot file {path}: missing sidecar {sidecar.name}")
    doc = _load_json(sidecar)
    return Page(
        provider=provider,
        endpoint=endpoint,
        fetched_at=_parse_time(doc.get("fetched_at"), sidecar),
        request=doc.get("request", {}),
        path=path,
        source_url=doc.get("source_url"),
        provenance=stated.check(doc.get("provenance"), sidecar),
    )


def _natural(name: str) -> list:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", name)]


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "page"


def write_pages(root: Path, pages: Iterable[Page]) -> int:
    """Write pages in the snapshot format; returns the number written."""
    counters: dict[tuple[str, str, str], int] = {}
    written = 0
    for page in pages:
        folder = root / page.provider / page.endpoint
        folder.mkdir(parents=True, exist_ok=True)
        key = (page.provider, page.endpoint, page.scope)
        counters[key] = counters.get(key, 0) + 1
        stem = f"{_safe(page.scope or page.endpoint)}-{counters[key]:04d}"
        meta = {
            "fetched_at": page.fetched_at.strftime("%Y-%m-%dT%H:%M:%S.%fZ"),
            "request": page.request,
        }
        if page.source_url:
            meta["source_url"] = page.source_url
        if page.provenance is not None:
            meta["provenance"] = page.provenance
        if page.path is not None:
            (folder / f"{stem}.csv").write_text(page.payload, encoding="utf-8")
            (folder / f"{stem}.csv.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
        elif page.data is not None:
            # the body's bytes verbatim, last: replayed, the page hashes to the same sha256
            head = json.dumps(meta, indent=1, ensure_ascii=False).encode()
            (folder / f"{stem}.json").write_bytes(
                head[:-2] + b',\n "body": ' + page.content + b"\n}\n"
            )
        else:
            meta["body"] = json.loads(page.payload)  # credentials masked (Page.payload)
            (folder / f"{stem}.json").write_text(
                json.dumps(meta, indent=1, ensure_ascii=False), encoding="utf-8"
            )
        written += 1
    return written
