"""Progress of a refresh, step by step: who (a connector, or "warehouse") does what, and
for how long.

The refresh code reports through `step(who, stage)`; what is shown depends on the reporter
in place: nothing by default (served runs, tests, --json pipes), a live rich display on
the terminal's stderr for an interactive `gpu-pricing refresh`. Steps run in the fetch
threads too, so the reporter is process-wide and thread-safe.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass


@dataclass
class Step:
    who: str
    stage: str
    seconds: float = 0.0
    note: str = ""  # e.g. "17 pages", shown when the step is done


class Reporter:
    """Shows nothing."""

    def start(self, step: Step) -> None:
        pass

    def done(self, step: Step) -> None:
        pass

    def close(self) -> None:
        pass


class RichReporter(Reporter):
    """One line per connector (and one for the warehouse) on stderr: the stage it is in, a
    spinner and its elapsed time; each finished stage is noted with its duration."""

    def __init__(self) -> None:
        from rich.console import Console
        from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn
        from rich.table import Column

        self._progress = Progress(
            SpinnerColumn(finished_text="[green]done"),
            TextColumn("{task.fields[who]}", table_column=Column(min_width=10, no_wrap=True)),
            TimeElapsedColumn(),
            # a long list of finished stages folds onto the next line rather than be cut
            TextColumn("{task.description}", markup=False, table_column=Column(overflow="fold")),
            console=Console(stderr=True),
        )
        self._lines: dict[str, int] = {}
        self._history: dict[str, list[str]] = {}
        self._lock = threading.Lock()
        self._progress.start()

    def _show(self, who: str, current: str) -> None:
        text = "; ".join([*self._history.get(who, []), current] if current else self._history[who])
        if who not in self._lines:
            self._lines[who] = self._progress.add_task(text, who=who, total=None)
        else:
            self._progress.update(self._lines[who], description=text)

    def start(self, step: Step) -> None:
        with self._lock:
            self._show(step.who, f"{step.stage}...")

    def done(self, step: Step) -> None:
        with self._lock:
            note = f" ({step.note})" if step.note else ""
            self._history.setdefault(step.who, []).append(
                f"{step.stage} {step.seconds:.1f} s{note}"
            )
            self._show(step.who, "")

    def close(self) -> None:
        with self._lock:
            for line in self._lines.values():
                self._progress.update(line, total=1, completed=1)
            self._progress.stop()


_reporter: Reporter = Reporter()


@contextmanager
def reporting(reporter: Reporter) -> Iterator[Reporter]:
    """Show the steps run inside this block with `reporter`."""
    global _reporter
    previous, _reporter = _reporter, reporter
    try:
        yield reporter
    finally:
        _reporter = previous
        reporter.close()


@contextmanager
def step(who: str, stage: str) -> Iterator[Step]:
    """Time a step and report its start and end; `seconds` is set when the block ends
    (also when it raises)."""
    current = Step(who, stage)
    _reporter.start(current)
    began = time.perf_counter()
    try:
        yield current
    except BaseException:
        current.note = current.note or "failed"
        raise
    finally:
        current.seconds = time.perf_counter() - began
        _reporter.done(current)


def done_now(who: str, stage: str, seconds: float, note: str = "") -> None:
    """Report a step timed elsewhere (e.g. a stage of the single writer's clock)."""
    _reporter.done(Step(who, stage, seconds, note))
