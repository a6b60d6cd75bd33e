"""Refreshing and reading a test warehouse in this process: the steps `gpu-pricing refresh`
runs (read the pages, land, parse, stage, publish) without Prefect or a child process. One
home for what the tests repeat; a test that needs the command itself runs it through
tests/_cli.py."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

import polars as pl

from connectors.kit.page import FetchContext, FetchFailure, Page
from flows import pipeline
from samples.azure import azure_retail_item, azure_retail_page
from warehouse import db


def snapshot_pages(snapshot: str | Path, *providers: str) -> dict[str, list[Page | FetchFailure]]:
    """Each provider's pages from a snapshot directory (or "demo", the bundled one)."""
    return {p: pipeline.fetch_pages(p, snapshot, FetchContext()) for p in providers}


def retail_pages(n: int) -> list[Page]:
    """`n` pages of Azure's Retail Prices API in its page shape (samples/azure.py), one
    region and one A100 price each: pages a landing stores, each of its own request and
    bytes."""
    pages = []
    for i in range(n):
        region = f"region{i:03d}"
        item = azure_retail_item(
            arm_sku="Standard_NC24ads_A100_v4",
            display="NC24ads A100 v4",
            series="NCadsA100_v4",
            region=region,
            location="X",
            price=3.67 + i,
        )
        body = json.dumps(azure_retail_page([item], None)).encode()
        pages.append(Page("azure", "retail_prices", None, {"region": region}, data=body))
    return pages


def refresh(
    path: Path,
    pages: Mapping[str, Iterable[Page | FetchFailure]],
    *,
    source: str = "test",
    accept_drop: tuple[str, ...] = (),
) -> pipeline.RunSummary:
    """One refresh of `path` from pages already in hand, per provider (`accept_drop`: as
    `refresh --accept-drop`)."""
    return pipeline.load_and_publish(path, dict(pages), source=source, accept_drop=accept_drop)


def refresh_from(
    path: Path,
    snapshot: str | Path,
    *providers: str,
    source: str | None = None,
    accept_drop: tuple[str, ...] = (),
) -> pipeline.RunSummary:
    """One refresh of `path` from a snapshot directory (or "demo"), the providers named."""
    pages = snapshot_pages(snapshot, *providers)
    return refresh(
        path, pages, source=str(snapshot) if source is None else source, accept_drop=accept_drop
    )


def query(path: Path, sql: str, params=None) -> pl.DataFrame:
    """A query on the published warehouse, read-only, as an analyst opens it."""
    con = db.connect_readonly(path)
    try:
        return db.query(con, sql, params)
    finally:
        con.close()


def copy_warehouse(path: Path, to: Path) -> Path:
    """A private copy of the warehouse file `path` at `to`, with its raw store beside it
    (where a later refresh reads unchanged pages from): a test that writes works on one,
    never on the shared demo warehouse."""
    to.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(path, to)
    store = path.with_name(path.name + ".raw")  # the raw store's default place
    if store.exists():
        shutil.copytree(store, to.with_name(to.name + ".raw"))
    return to
