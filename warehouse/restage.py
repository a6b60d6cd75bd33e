"""A connector's staged offers emptied before its pages are parsed again, and put back as
the published file holds them when that parse fails.

A parse stages its offers in one transaction (flows.pipeline), so a parse that fails
leaves the staged offers as they were. But DuckDB frees a deleted row's blocks only at a
checkpoint, and a build checkpoints after that transaction: the build's file then holds
the old and the new offers at once, and the old ones' blocks stay free in the published
file as the next night's working room (at a million Azure items, ~17 MB, a fifth of the
file, growing with the staged table). `empty` deletes them and checkpoints before the
transaction, so the new offers are written into their blocks; the build runs in a copy
of the published file (warehouse.db.building), which still holds them, and `restore`
copies them back from it when the parse fails, so a provider whose pages no longer parse
keeps its last good offers as before.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from connectors import registry
from warehouse.db import in_transaction, relation_exists, run, text_literal
from warehouse.staging import ParsedFrom, parsed_already, parsed_from, staged_rows

PUBLISHED = "_published"
# a staged table in fewer blocks than this is left as it was: its checkpoint would cost
# more than the few blocks it frees (most connectors stage a few hundred offers)
MIN_BLOCKS = 4


def _blocks(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """The blocks `table`'s stored segments occupy."""
    return run(
        con,
        f"""SELECT count(DISTINCT block_id) FROM pragma_storage_info('{table}')
            WHERE persistent AND block_id >= 0""",
    )[0][0]


def empty(
    con: duckdb.DuckDBPyConnection, name: str, parsed: ParsedFrom | None = None
) -> int | None:
    """When `name`'s pages or parsing code changed since its offers were staged (so
    `staging.stage_provider` parses them again) and it has staged offers: delete them and
    checkpoint. Returns the rows deleted (what a fall in offers is measured from), None
    when nothing was done (unchanged, nothing staged, fewer than MIN_BLOCKS blocks of
    them, or inside a transaction, where no checkpoint can run). Only in `building`'s
    copy: pair it with `restore` when the parse fails. `parsed`: `parsed_from`'s answer,
    when the caller has it."""
    if in_transaction(con):
        return None
    if parsed_already(parsed or parsed_from(con, name)):
        return None
    table = registry.get(name).staging_table
    rows = staged_rows(con, table)
    if not rows or _blocks(con, table) < MIN_BLOCKS:
        return None
    run(con, f"DELETE FROM {table}")
    run(con, "CHECKPOINT")
    return rows


def restore(con: duckdb.DuckDBPyConnection, name: str, published: Path) -> int:
    """Put `name`'s staged offers back as the published file `published` holds them (the
    file this build copied, which no build writes), after a parse that `empty` prepared
    failed and rolled back. Returns the rows put back."""
    table = registry.get(name).staging_table
    if not Path(published).exists():
        return 0
    run(con, f"ATTACH {text_literal(published)} AS {PUBLISHED} (READ_ONLY)")
    try:
        if not relation_exists(con, table, database=PUBLISHED):
            return 0
        run(con, f"DELETE FROM {table}")
        run(con, f"INSERT INTO {table} BY NAME SELECT * FROM {PUBLISHED}.main.{table}")
        return run(con, f"SELECT count(*) FROM {table}")[0][0]
    finally:
        run(con, f"DETACH {PUBLISHED}")
