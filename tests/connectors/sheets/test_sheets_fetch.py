"""Price sheets "fetch": the CSV files become file pages, one load scope per sheet."""

from __future__ import annotations

import shutil

from connectors.errors import UnexpectedResponse
from connectors.kit import snapshot as kit_snapshot
from connectors.kit.page import FetchContext, FetchFailure, Page
from connectors.sheets import fetch, settings
from tests.conftest import FIXTURES


def test_every_bundled_sheet_is_one_file_page_scoped_by_its_name():
    pages = list(fetch.fetch_live(FetchContext()))
    names = sorted(p.name for p in settings.SHEETS_DIR.glob("*.csv"))
    assert all(isinstance(p, Page) for p in pages)
    assert [p.scope for p in pages] == names
    assert "a100_price_survey_2023-04-07.csv" in names
    page = pages[names.index("a100_price_survey_2023-04-07.csv")]
    assert (page.provider, page.endpoint, page.request) == (
        "sheets",
        "price_sheet",
        {"sheet": "a100_price_survey_2023-04-07.csv"},
    )
    assert page.path is not None and page.payload == page.path.read_text()


def test_a_sheet_missing_a_required_column_fails_alone(tmp_path):
    shutil.copy(FIXTURES / "sheets" / "mixed_sheet.csv", tmp_path / "good.csv")
    (tmp_path / "broken.csv").write_text("provider,gpu,price\nx,H100,1.0\n")
    items = list(fetch.fetch_live(FetchContext(settings={"sheets_dir": tmp_path})))
    failures = [i for i in items if isinstance(i, FetchFailure)]
    assert [(f.endpoint, f.scope) for f in failures] == [("price_sheet", "broken.csv")]
    assert isinstance(failures[0].error, UnexpectedResponse)
    assert "sheet broken.csv: missing column(s)" in str(failures[0].error)
    assert [i.scope for i in items if isinstance(i, Page)] == ["good.csv"]


def test_sheets_round_trip_through_the_snapshot_format_byte_for_byte(tmp_path):
    pages = [p for p in fetch.fetch_live(FetchContext()) if isinstance(p, Page)]
    kit_snapshot.write_pages(tmp_path, pages)
    replayed = list(kit_snapshot.read_provider(tmp_path, "sheets"))
    assert sorted((p.request["sheet"], p.payload) for p in replayed) == sorted(
        (p.request["sheet"], p.payload) for p in pages
    )
    assert {p.sha256 for p in replayed} == {p.sha256 for p in pages}


def test_the_demo_snapshot_holds_the_bundled_sheets_unchanged():
    demo = {
        p.request["sheet"]: p.payload for p in kit_snapshot.read_provider(kit_snapshot.DEMO_DIR, "sheets")
    }
    bundled = {p.name: p.read_text() for p in settings.SHEETS_DIR.glob("*.csv")}
    assert demo == bundled
