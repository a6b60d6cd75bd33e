"""The documentation's shell commands: every `bash` block of docs/*.md and CONTRIBUTING.md
says whether it runs (`<!-- runnable -->` on the line before it) or why not (`<!-- not run:
REASON -->`), and every runnable one runs as written in a fresh directory holding the demo
warehouse (the README's Quick start has its own test, tests/test_readme_commands.py).
Also: the README stays a front door (under 200 lines, no reference section), and every
relative link of the documentation points at a file that exists."""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.test_readme_commands import BIN, as_run_here

REPO = Path(__file__).resolve().parents[1]
PAGES = [REPO / "CONTRIBUTING.md", *sorted((REPO / "docs").glob("*.md"))]
FRONT = [REPO / "README.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md"]
BLOCK = re.compile(r"(?ms)^(?P<before>[^\n]*)\n```bash\n(?P<body>.*?)^```")
PYTHON = re.compile(r"(?ms)^<!-- runnable -->\n```python\n(?P<body>.*?)^```")
NOT_RUN = re.compile(r"<!-- not run: (?P<why>.{20,}) -->")


def bash_blocks(page: Path) -> list[tuple[str, str]]:
    """(the line before the block, the block's text) for each ```bash block of a page."""
    return [(m["before"].strip(), m["body"]) for m in BLOCK.finditer(page.read_text())]


def commands(body: str) -> list[str]:
    """A block's command lines, continuation lines joined, comments dropped."""
    text = body.replace("\\\n", " ")
    out = []
    for line in text.splitlines():
        line = line.split(" #", 1)[0].strip()
        if line and not line.startswith("#"):
            out.append(line)
    return out


def test_every_shell_block_of_the_docs_runs_or_says_why_not():
    unmarked = [
        f"{page.relative_to(REPO)}: {body.splitlines()[0]}"
        for page in PAGES
        for before, body in bash_blocks(page)
        if before != "<!-- runnable -->" and not NOT_RUN.fullmatch(before)
    ]
    assert unmarked == [], "mark each block <!-- runnable --> or <!-- not run: why -->"
    runnable = [b for page in PAGES for before, b in bash_blocks(page) if before == "<!-- runnable -->"]
    assert len(runnable) >= 3


def run_here(command: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    # a plain shell command (cp ...) runs as it is, from the project's root as the docs assume
    argv = as_run_here(command) if command.startswith("uv run") else shlex.split(command)
    return run_alone(argv, cwd, env)


def run_alone(argv: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    """`argv` to its end, its output in files and in a session of its own, which is ended
    after it: a process it leaves behind (Prefect's temporary API server, which the Python
    example's alerts check starts to read a Secret block, can outlive it on a loaded
    machine) neither holds the output open, so the run waits for it, nor outlives the test."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=out, stderr=err,
                                start_new_session=True)  # fmt: skip
        try:
            proc.wait(timeout=600)
        finally:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        out.seek(0)
        err.seek(0)
        return subprocess.CompletedProcess(
            argv, proc.returncode, out.read().decode(errors="replace"),
            err.read().decode(errors="replace"),
        )  # fmt: skip


@pytest.mark.slow  # a demo refresh and every runnable command in child processes
def test_every_runnable_block_of_the_docs_runs_as_written(tmp_path):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PREFECT_", "GPU_PRICING_"))}
    env["PREFECT_HOME"] = str(tmp_path / "prefect-home")
    work = tmp_path / "checkout"
    work.mkdir()
    shutil.copy(REPO / "gpu-pricing.example.toml", work)  # what the docs copy from
    first = run_here("uv run gpu-pricing refresh --snapshot demo", work, env)
    assert first.returncode == 0, first.stderr[-1500:]
    ran = []
    for page in PAGES:
        for before, body in bash_blocks(page):
            if before != "<!-- runnable -->":
                continue
            for command in commands(body):
                done = run_here(command, work, env)
                where = f"{page.relative_to(REPO)}: {command}"
                assert done.returncode == 0, f"{where}\n{done.stdout[-1500:]}\n{done.stderr[-1500:]}"
                ran.append(where)
    for page in PAGES:  # python blocks marked runnable: run whole, on the demo warehouse
        for m in PYTHON.finditer(page.read_text()):
            done = run_alone(
                [str(BIN / "python"), "-c", m["body"]],
                work,
                {**env, "GPU_PRICING_WAREHOUSE": str(work / "warehouse" / "gpu_pricing.duckdb")},
            )
            assert done.returncode == 0, f"{page.relative_to(REPO)}\n{done.stderr[-2000:]}"
            ran.append(f"{page.relative_to(REPO)}: python")
    assert len(ran) >= 5, ran
    assert (work / "report.html").exists()


def test_the_readme_is_a_front_door():
    text = (REPO / "README.md").read_text()
    assert len(text.splitlines()) < 200
    headings = re.findall(r"(?m)^## (.+)$", text)
    # reference lives in docs/: these sections must not grow back into the README
    for moved in ("Providers", "Pricing models", "SQL models", "Benchmarks", "Running at team scale",
                  "Snapshot format", "Python API", "Adding a provider", "Changes in this release"):
        assert moved not in headings, moved
    assert (REPO / "docs" / "report.png").exists() and "](docs/report.png)" in text
    for required in ("LICENSE", "CHANGELOG.md", "CONTRIBUTING.md"):
        assert (REPO / required).is_file()
    assert "Apache License" in (REPO / "LICENSE").read_text()[:200]


def test_every_relative_link_of_the_docs_points_at_a_file():
    broken = []
    for page in [*FRONT, *PAGES]:
        for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", page.read_text()):
            if re.match(r"[a-z]+:", target):
                continue  # a URL
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert broken == []


def test_no_command_in_the_docs_runs_prefect_outside_the_project_environment():
    """`prefect ...` is "command not found" in a fresh clone: it is `uv run prefect ...`."""
    bare = []
    for page in [*FRONT, *PAGES, REPO / "prefect.yaml"]:
        for line in page.read_text().splitlines():
            for m in re.finditer(r"(?:^|[\s`(])(prefect (?:server|worker|work-pool|deploy|deployment|config|--no-prompt)\b)", line):
                start = line[: m.start(1)]
                if not start.rstrip().endswith("uv run"):
                    bare.append(f"{page.relative_to(REPO)}: {line.strip()}")
    assert bare == []
