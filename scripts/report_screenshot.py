"""Regenerate docs/report.png, the README's picture of the report, from the bundled demo
snapshot, and docs/report.png.sha256, the digest of the report HTML it was drawn from.

    uv run python scripts/report_screenshot.py [--chromium /usr/bin/chromium]

The demo snapshot is refreshed into a temporary warehouse, the report rendered with a fixed
"generated at" time, opened in a headless Chromium (Debian's `chromium`, or Playwright's
own download) and captured whole. tests/scripts/test_report_screenshot.py renders the same
report and compares its digest with the recorded one, so a change to the report's code,
its template or the demo data that would change the picture fails until this script is run
again.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
import tempfile
from datetime import datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:  # run as a file: the project's packages sit beside it
    sys.path.insert(0, str(REPO))

from connectors import registry  # noqa: E402
from connectors.kit.page import FetchContext  # noqa: E402
from flows import pipeline  # noqa: E402
from gpu_pricing import report  # noqa: E402
from warehouse import db  # noqa: E402

SCREENSHOT = REPO / "docs" / "report.png"
DIGEST = SCREENSHOT.with_name(SCREENSHOT.name + ".sha256")
NOW = datetime(2026, 11, 21, 3, 0)  # the report's "generated at": fixed, so it is stable
GPU = "H100"
VIEWPORT = {"width": 1280, "height": 900}
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def demo_warehouse(path: Path) -> Path:
    """The bundled demo snapshot refreshed into `path` (every provider, as `gpu-pricing
    refresh --snapshot demo` lands it)."""
    pages = {name: pipeline.fetch_pages(name, "demo", FetchContext()) for name in registry.PROVIDERS}
    pipeline.load_and_publish(path, pages, source="demo")
    return path


def render(warehouse: Path) -> tuple[str, dict[str, bool]]:
    """The report's HTML, and which sections had data."""
    con = db.connect_readonly(warehouse)
    try:
        return report.render(con, gpu=GPU, now=NOW)
    finally:
        con.close()


def digest(html: str) -> str:
    return hashlib.sha256(html.encode()).hexdigest()


def find_chromium() -> Path | None:
    for name in CHROMIUM_NAMES:
        if found := shutil.which(name):
            return Path(found)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:  # a browser from `playwright install chromium`, if any
        bundled = Path(pw.chromium.executable_path)
    return bundled if bundled.exists() else None


def screenshot(html: str, out: Path, chromium: Path) -> dict:
    """Open the report in Chromium, wait for every chart, capture the whole page; returns
    what the page drew (charts, and the data points of each), any console errors, and the
    URLs it requested and failed to get (a self-contained report requests its own file
    only)."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as tmp:
        page_file = Path(tmp) / "report.html"
        page_file.write_text(html, encoding="utf-8")
        errors: list[str] = []
        requests: list[str] = []
        failed: list[str] = []
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=str(chromium), args=ARGS)
            try:
                page = browser.new_page(viewport=VIEWPORT)
                page.on("pageerror", lambda e: errors.append(str(e)))
                page.on(
                    "console", lambda m: errors.append(m.text) if m.type == "error" else None
                )
                page.on("request", lambda r: requests.append(r.url))
                page.on("requestfailed", lambda r: failed.append(r.url))
                page.goto(page_file.as_uri())
                expected = html.count("Plotly.newPlot")
                page.wait_for_function(
                    f"document.querySelectorAll('.plotly-graph-div .main-svg').length >= {expected}"
                )
                drawn = page.evaluate(
                    """() => Object.fromEntries([...document.querySelectorAll('.plotly-graph-div')]
                        .map(d => [d.id, d.querySelectorAll('.point, .scatterlayer path.js-line')
                                          .length]))"""
                )
                out.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(out), full_page=True)
            finally:
                browser.close()
    return {"charts": drawn, "errors": errors, "requests": requests, "failed": failed}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--chromium", type=Path, help="the browser (default: found on PATH)")
    parser.add_argument("--out", type=Path, default=SCREENSHOT, help="PNG to write")
    args = parser.parse_args(argv)
    chromium = args.chromium or find_chromium()
    if chromium is None:
        print(
            "no Chromium found: install Debian's `chromium` package, or run "
            "`uv run playwright install chromium`",
            file=sys.stderr,
        )
        return 2
    with tempfile.TemporaryDirectory() as tmp:
        html, sections = render(demo_warehouse(Path(tmp) / "demo.duckdb"))
    seen = screenshot(html, args.out, chromium)
    # the demo has no alert in ALARM; every other section has data and a drawn chart
    empty = [key for key, has_data in sections.items() if not has_data and key != "alerts"]
    empty += [key for key, points in seen["charts"].items() if not points]
    if seen["errors"] or empty:
        print(f"the page had errors {seen['errors']} or empty charts {empty}", file=sys.stderr)
        return 1
    if args.out == SCREENSHOT:
        DIGEST.write_text(digest(html) + "\n")
    print(f"wrote {args.out} ({args.out.stat().st_size / 1e3:.0f} kB): {seen['charts']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
