"""The SQL project as read (declared relations, lineage) is kept while its files stay as
they are (warehouse.sql_cache): in the process, and between commands in the bytecode
folder when there is one. An edited file is read again, however soon after."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from warehouse import file_digest, sql_cache, sql_runner

SCHEMA = """version: 2
models:
  - name: int_things
    description: {description}
    columns:
      - name: thing
        description: a thing
"""


@pytest.fixture
def project(tmp_path, monkeypatch) -> Path:
    sql = tmp_path / "sql"
    (sql / "intermediate").mkdir(parents=True)
    (sql / "intermediate" / "int_things.sql").write_text("select 1 as thing from seed_things\n")
    (sql / "intermediate" / "int_things.yml").write_text(SCHEMA.format(description="first"))
    monkeypatch.setattr(sql_cache, "_memo", {})
    monkeypatch.setattr(file_digest, "_known", {})
    monkeypatch.setattr(sys, "pycache_prefix", str(tmp_path / "pycache"))
    return sql


def _reads(monkeypatch) -> list[str]:
    """The project's reads from its files, from now on."""
    calls: list[str] = []
    for name in ("_relations", "_lineage_graph"):
        real = getattr(sql_runner, name)
        monkeypatch.setattr(
            sql_runner, name, lambda d, real=real, name=name: calls.append(name) or real(d)
        )
    return calls


def test_a_later_command_reads_the_project_as_kept(project, monkeypatch, tmp_path):
    first = sql_runner.relations(project), sql_runner.lineage_graph(project)
    kept = sorted(p.name.split("-")[0] for p in (tmp_path / "pycache" / sql_cache.FOLDER).iterdir())
    assert kept == ["lineage", "relations"]
    monkeypatch.setattr(sql_cache, "_memo", {})  # another process: the folder is all it has
    reads = _reads(monkeypatch)
    again = sql_runner.relations(project), sql_runner.lineage_graph(project)
    assert reads == []
    assert again == first
    assert again[1] == {"int_things": {"seed_things"}, "seed_things": set()}
    assert again[0]["int_things"].description == "first"


def test_an_edited_file_is_read_again_at_once(project, monkeypatch):
    schema = project / "intermediate" / "int_things.yml"
    assert sql_runner.relations(project)["int_things"].description == "first"
    reads = _reads(monkeypatch)
    # the same size, at once: within a timestamp's granularity, so only its bytes tell
    schema.write_text(SCHEMA.format(description="other"))
    assert sql_runner.relations(project)["int_things"].description == "other"
    (project / "intermediate" / "int_things.sql").write_text("select 1 as thing from things\n")
    assert sql_runner.lineage_graph(project)["int_things"] == {"things"}
    assert reads == ["_relations", "_lineage_graph"]


def test_a_file_unchanged_for_a_while_is_not_read_again_in_the_process(project, monkeypatch):
    old = 1_600_000_000
    for path in project.rglob("*"):
        os.utime(path, (old, old))
    sql_runner.relations(project)
    reads = _reads(monkeypatch)
    digest = sql_cache.digest(project)
    monkeypatch.setattr(Path, "read_bytes", lambda self: pytest.fail(f"{self} was read"))
    assert sql_cache.digest(project) == digest
    assert sql_runner.relations(project)["int_things"].description == "first"
    assert reads == []


def test_without_a_bytecode_folder_nothing_is_written(project, monkeypatch, tmp_path):
    monkeypatch.setattr(sys, "pycache_prefix", None)
    sql_runner.relations(project)
    assert not (tmp_path / "pycache").exists()


def test_a_caller_changing_what_it_got_changes_nothing_kept(project):
    sql_runner.relations(project).clear()
    sql_runner.lineage_graph(project)["int_things"].add("nothing")
    assert list(sql_runner.relations(project)) == ["int_things"]
    assert sql_runner.lineage_graph(project)["int_things"] == {"seed_things"}


def test_a_digest_is_the_files_names_and_bytes_as_stored_digests_were_made(tmp_path):
    """The digests refreshes store (`_staged.code_digest`, `_runs.asserted_sql`,
    `tables_digest`) are one sha256 over each file's name relative to the root, a NUL and
    its bytes: the same value as before they shared this function, so no warehouse re-parses
    or re-asserts for it."""
    import hashlib

    (tmp_path / "a").mkdir()
    files = [tmp_path / "a" / "x.sql", tmp_path / "b.yml"]
    files[0].write_bytes(b"select 1")
    files[1].write_bytes(b"version: 2")
    made = hashlib.sha256(b"a/x.sql\0select 1" + b"b.yml\0version: 2").hexdigest()
    assert file_digest.files_digest(files, tmp_path) == made
