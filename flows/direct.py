"""The refresh body, and how it runs without Prefect.

Every connector's fetch runs concurrently, then one writer lands, parses, stages, merges
history, rebuilds views, asserts and publishes (flows.pipeline); then the alerts are checked
and the warehouse is published where gpu-pricing.toml says. One body (`run_refresh`) runs
two ways, each step given by a `Steps`:
- directly (`refresh_direct`, the command line without a Prefect API): plain calls, no
  orchestrator, and Prefect is not even imported (importing it costs about a second, more
  than a small refresh);
- as the Prefect flow `refresh` (flows.refresh), with each step a task, so runs, logs and
  artifacts are visible.

Retries (exponential backoff with jitter) sit on the fetch step only, and only for
retryable errors, with the same policy both ways; a connector whose fetch fails is recorded
in `_loads` and the others go on. Before publishing, the budgets and rate rules of
gpu-pricing.toml are checked on the refresh's own build (services.alerts); an alert
failure is logged and never fails the refresh. When gpu-pricing.toml sets `[publish] to`, the last step publishes the
warehouse there as Iceberg tables (warehouse.publish); a publish failure is logged, shown
in the summary and retried at the next run (publishing is idempotent), and never undoes the
refresh.
"""

from __future__ import annotations

import logging
import os
import sys
import time
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from common.errors import InvalidInput
from connectors.errors import SourceUnavailable
from connectors.kit.page import FetchContext, FetchFailure
from flows import pipeline, progress
from services import alerts
from services.config import Config
from services.config import load as load_config
from warehouse import staging

# the fetch retry policy, for the Prefect task and the direct run alike: two retries after
# ~10 s and ~20 s (Prefect's exponential backoff, each delay spread +-50%), only for
# SourceUnavailable (timeouts, 5xx, 429)
FETCH_RETRIES = 2
FETCH_BACKOFF_SECONDS = 10
FETCH_RETRY_DELAYS = [FETCH_BACKOFF_SECONDS * 2**i for i in range(FETCH_RETRIES)]
FETCH_RETRY_JITTER = 0.5


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, SourceUnavailable)


@dataclass
class Fetched:
    pages: Iterable  # a list, or a snapshot's pages read as they are landed
    seconds: float


def fetch_step(provider: str, snapshot: str | None, ctx: FetchContext, log) -> Fetched:
    with progress.step(provider, "fetch") as step:
        pages = pipeline.fetch_pages(provider, snapshot, ctx)
        step.note = (
            "snapshot, read as landed"
            if isinstance(pages, pipeline.SnapshotPages)
            else f"{pages.pages} page(s)"
            if isinstance(pages, pipeline.SpooledPages)
            else f"{sum(not isinstance(p, FetchFailure) for p in pages)} page(s)"
        )
    log.info("%s: fetched %s in %.1f s", provider, step.note, step.seconds)
    return Fetched(pages, round(step.seconds, 3))


def fetch_with_retries(
    provider: str,
    snapshot: str | None,
    ctx: FetchContext,
    log: logging.Logger | logging.LoggerAdapter,
    sleep: Callable[[float], None] = time.sleep,
) -> Fetched:
    """The fetch task's retry policy without Prefect: same attempts, delays, jitter and
    condition."""
    for delay in [*FETCH_RETRY_DELAYS, None]:
        try:
            return fetch_step(provider, snapshot, ctx, log)
        except Exception as exc:
            if delay is None or not retryable(exc):
                raise
            # Prefect's own jitter; imported only when a fetch is retried
            from prefect.utilities.math import clamped_poisson_interval

            wait = clamped_poisson_interval(delay, clamping_factor=FETCH_RETRY_JITTER)
            log.warning("fetch %s failed (%s); retrying in %.0f s", provider, exc, wait)
            sleep(wait)
    raise AssertionError("unreachable")  # the last attempt returns or raises


def summary_markdown(summary: pipeline.RunSummary) -> str:
    lines = [
        f"# gpu-pricing refresh {summary.run_id}",
        "",
        f"Source: `{summary.source}`; warehouse: `{summary.warehouse}`; exit code {summary.exit_code}.",
        f"History: {summary.history.get('opened', 0)} price periods opened, "
        f"{summary.history.get('closed', 0)} closed.",
        "",
        "| connector | status | pages | unchanged | offers | rejected | excluded | unknown GPU "
        "| fetch s | land s | parse/stage s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for p in summary.providers:
        lines.append(
            f"| {p.provider} | {p.status} | {p.fetched} | {p.unchanged} | {p.loaded} | "
            f"{p.rejected} | {p.excluded} | {p.unknown_gpu} "
            f"| {p.fetch_seconds:.2f} | {p.land_seconds:.2f} | {p.stage_seconds:.2f} |"
        )
    for p in summary.providers:
        for failure in p.failed:
            lines.append(f"\n- **{p.provider} failed**: {failure}")
        for note in p.notes:
            lines.append(f"\n- {p.provider}: quarantined, {note}")
        for skip in p.skipped:
            lines.append(f"\n- {p.provider} skipped: {skip}")
    return "\n".join(lines)


def publish_step(path: Path, cfg: Config) -> dict:
    from warehouse import publish as pub

    result = pub.publish(
        path,
        cfg.publish.to,
        namespace=cfg.publish.namespace,
        catalog=pub.resolve_properties(cfg.publish.catalog, "publish.catalog"),
        properties=pub.resolve_properties(cfg.publish.properties, "publish.properties"),
        include_duckdb=cfg.publish.duckdb,
    )
    return result.to_dict()


@dataclass
class Steps:
    """How each step of a refresh runs: plain calls (`DIRECT`) or Prefect tasks
    (flows.refresh)."""

    log: Callable[[], logging.Logger | logging.LoggerAdapter]
    # provider -> context  =>  provider -> a call that returns its Fetched (or raises)
    fetch: Callable[[dict[str, FetchContext], str | None, Any], dict[str, Callable[[], Fetched]]]
    # (warehouse, pages, source, config, connectors whose drop is accepted) -> the summary,
    # and the alert outcome (None when the alerts check failed): the alerts are checked
    # inside the refresh's own build
    # ... and whether every row is checked (warehouse.checks)
    load_and_publish: Callable[
        [Path, dict, str, Config, tuple[str, ...], bool],
        tuple[pipeline.RunSummary, alerts.CheckResult | None],
    ]
    publish: Callable[[Path, Config], dict]
    # (summary, warehouse, alert outcome, publish line) -> None: the run's artifacts
    artifacts: Callable[[pipeline.RunSummary, Path, Any, str], None] | None = None


def _fetch_in_threads(contexts: dict[str, FetchContext], snapshot: str | None, log):
    pool = ThreadPoolExecutor(max_workers=max(1, len(contexts)))
    jobs = {n: pool.submit(fetch_with_retries, n, snapshot, ctx, log) for n, ctx in contexts.items()}
    pool.shutdown(wait=False)
    return {n: j.result for n, j in jobs.items()}


def load_publish_and_check(
    path: Path,
    fetched: dict,
    source: str,
    cfg: Config,
    accept_drop: tuple[str, ...] = (),
    full_check: bool = False,
) -> tuple[pipeline.RunSummary, alerts.CheckResult | None]:
    """The refresh's build, with the budgets and rate rules checked on its marts before it
    publishes (in the same pass: no copy of the warehouse, no second build)."""
    checked: list[alerts.CheckResult] = []
    summary = pipeline.load_and_publish(
        path,
        fetched,
        source=source,
        checks=cfg.checks.rules(),
        accept_drop=accept_drop,
        alerts=lambda con: checked.append(alerts.check_built(con, path, cfg)),
        full_check=full_check,
    )
    return summary, (checked[0] if checked else None)


DIRECT = Steps(
    log=lambda: logging.getLogger("flows.refresh"),
    fetch=_fetch_in_threads,
    load_and_publish=load_publish_and_check,
    publish=publish_step,
)


def run_refresh(
    warehouse: str | None,
    snapshot: str | None,
    providers: list[str] | None,
    regions: list[str] | None,
    config: str | None,
    *,
    steps: Steps,
    accept_drop: list[str] | None = None,
    full_check: bool | None = None,
) -> pipeline.RunSummary:
    """The refresh, each step run as `steps` says. `full_check`: check every row of the
    warehouse, not only the rows this refresh adds (None: as gpu-pricing.toml's
    `[schedule] full_check` says for today, the weekly full check)."""
    log = steps.log()
    cfg = load_config(config)  # a bad config fails here, before the warehouse is touched
    path = cfg.warehouse_path(warehouse)
    names = providers or cfg.connector_names()
    # where incremental fetches start; a snapshot replay fetches nothing, so reads none
    marks = staging.watermarks_of(path, names) if snapshot is None else {}
    contexts = {
        name: FetchContext(
            watermarks=marks.get(name, {}),
            regions=tuple(regions) if regions else cfg.regions_for(name),
        )
        for name in names
    }
    wait = steps.fetch(contexts, snapshot, log)
    fetched: dict[str, Iterable] = {}
    seconds: dict[str, float] = {}
    bad_input: InvalidInput | None = None
    for name, result in wait.items():
        try:
            done = result()
            fetched[name], seconds[name] = done.pages, done.seconds
        except InvalidInput as exc:  # an unreadable snapshot: the user's input, not a source
            bad_input = bad_input or exc
        except Exception as exc:  # one failing provider does not fail the others
            log.error("fetch %s failed: %s", name, exc)
            fetched[name] = [FetchFailure(name, "*", "", exc)]
    if bad_input is not None:
        raise bad_input  # before anything is landed: the published warehouse stays as it was
    source = snapshot or "live"
    if full_check is None:
        full_check = cfg.schedule.full_check_due(datetime.now(UTC))
    summary, checked = steps.load_and_publish(
        path, fetched, source, cfg, tuple(accept_drop or ()), full_check
    )
    for p in summary.providers:
        p.fetch_seconds = seconds.get(p.provider, 0.0)
    published = ""
    if cfg.publish.to and summary.exit_code != 3:
        try:
            doc = steps.publish(path, cfg)
            published = (
                f"Published {doc['publish_id']} to `{doc['to']}` ({len(doc['tables'])} tables)."
            )
        except Exception as exc:
            log.error(
                "publish to %s failed (the refresh itself is published): %s", cfg.publish.to, exc
            )
            published = f"**Publish to `{cfg.publish.to}` failed**: {exc}"
    if steps.artifacts is not None:
        steps.artifacts(summary, path, checked, published)
    for p in summary.providers:
        log.info(
            "%s: %s, %d pages (%d unchanged), %d offers, %d rejected; "
            "fetch %.1f s, land %.1f s, parse/stage %.1f s",
            p.provider,
            p.status,
            p.fetched,
            p.unchanged,
            p.loaded,
            p.rejected,
            p.fetch_seconds,
            p.land_seconds,
            p.stage_seconds,
        )
    return summary


def refresh_direct(
    warehouse: str | None = None,
    snapshot: str | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    config: str | None = None,
    accept_drop: list[str] | None = None,
    full_check: bool | None = None,
) -> pipeline.RunSummary:
    """The same refresh without Prefect (no API configured: nothing would keep the run)."""
    return run_refresh(
        warehouse, snapshot, providers, regions, config, steps=DIRECT, accept_drop=accept_drop,
        full_check=full_check,
    )


# where Prefect reads its settings from, besides the environment: the profiles file and,
# in the working directory, .env, prefect.toml and pyproject.toml ([tool.prefect])
def _settings_files() -> list[Path]:
    home = Path(os.environ.get("PREFECT_HOME") or Path.home() / ".prefect").expanduser()
    profiles = os.environ.get("PREFECT_PROFILES_PATH") or home / "profiles.toml"
    return [Path(profiles), Path(".env"), Path("prefect.toml"), Path("pyproject.toml")]


def _could_name_an_api() -> bool:
    """False only when no setting Prefect reads could name an API (then importing Prefect,
    about a second, is spared); True when one might, and Prefect itself decides."""
    if "prefect" in sys.modules or any(
        k.startswith(("PREFECT_API", "PREFECT_PROFILE")) for k in os.environ
    ):
        return True
    for f in _settings_files():
        try:
            text = f.read_text(errors="replace")
        except OSError:
            continue
        if f.name == "pyproject.toml":
            if "tool.prefect" in text:
                return True
        elif "api" in text.lower():
            return True
    return False


def prefect_api_url() -> str | None:
    """The Prefect API this process talks to (env, profile or .env), or None: then Prefect
    would start a temporary local server for each flow run."""
    if not _could_name_an_api():
        return None
    from prefect.settings import get_current_settings

    return get_current_settings().api.url or None


def prefect_api_unreachable(url: str, timeout: float = 5.0) -> str | None:
    """Why nothing answers at the Prefect API `url` (connection refused, a timeout, a bad
    host), or None when something does: any HTTP answer counts, so an API that wants a
    key is reachable (Prefect's own client reports a missing key)."""
    import httpx

    try:
        httpx.get(url.rstrip("/") + "/health", timeout=timeout)
    except httpx.TransportError as exc:
        return f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    except httpx.InvalidURL as exc:
        return f"not a URL ({exc})"
    return None
