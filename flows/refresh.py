"""The refresh: run every connector's fetch concurrently, then one writer lands, parses, stages,
merges history, rebuilds views, asserts and publishes.

One body (`_refresh`) runs two ways:
- as the Prefect flow `refresh` (served nightly, or from the command line when a Prefect
  API is configured), with each step a task, so runs, logs and artifacts are visible;
- directly (`refresh_direct`, the command line without a Prefect API), calling the same
  step functions without an orchestrator: no temporary Prefect server to start for a
  job of a few seconds.

Retries (exponential backoff with jitter) sit on the fetch step only, and only for
retryable errors, with the same policy both ways; a connector whose fetch fails is recorded
in `_loads` and the others go on. A flow run leaves a table artifact and a markdown
summary (with the cheapest offers and the alert outcome). After publishing, the budgets
and rate rules of gpu-pricing.toml are checked (gpu_pricing.notify); an alert failure is logged
and never fails the refresh. When gpu-pricing.toml sets `[publish] to`, the last step
publishes the warehouse there as Iceberg tables (gpu_pricing.publish); a publish failure is
logged, shown in the summary and retried at the next run (publishing is idempotent), and
never undoes the refresh.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff
from prefect.utilities.math import clamped_poisson_interval

from connectors._page import FetchContext, FetchFailure
from connectors._redact import install_logging, redact, redact_doc
from connectors.errors import InvalidInput, PricingError, SourceUnavailable
from flows import artifacts, pipeline, progress
from gpu_pricing import notify
from gpu_pricing.config import Config
from gpu_pricing.config import load as load_config

# the fetch retry policy, for the Prefect task and the direct run alike: two retries after
# ~10 s and ~20 s (each delay spread +-50%), only for SourceUnavailable (timeouts, 5xx, 429)
FETCH_RETRIES = 2
FETCH_RETRY_DELAYS = exponential_backoff(backoff_factor=10)(FETCH_RETRIES)
FETCH_RETRY_JITTER = 0.5


def retryable(exc: BaseException) -> bool:
    return isinstance(exc, SourceUnavailable)


def _retryable(task, task_run, state) -> bool:  # Prefect's retry_condition_fn signature
    try:
        state.result()
    except Exception as exc:
        return retryable(exc)
    return False


@dataclass
class Fetched:
    pages: list
    seconds: float


def fetch_step(provider: str, snapshot: str | None, ctx: FetchContext, log) -> Fetched:
    with progress.step(provider, "fetch") as step:
        pages = pipeline.fetch_pages(provider, snapshot, ctx)
        step.note = f"{sum(not isinstance(p, FetchFailure) for p in pages)} page(s)"
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
            wait = clamped_poisson_interval(delay, clamping_factor=FETCH_RETRY_JITTER)
            log.warning("fetch %s failed (%s); retrying in %.0f s", provider, exc, wait)
            sleep(wait)
    raise AssertionError("unreachable")  # the last attempt returns or raises


@task(
    retries=FETCH_RETRIES,
    retry_delay_seconds=FETCH_RETRY_DELAYS,
    retry_jitter_factor=FETCH_RETRY_JITTER,
    retry_condition_fn=_retryable,
    task_run_name="fetch-{provider}",
)
def fetch_provider(provider: str, snapshot: str | None, ctx: FetchContext) -> Fetched:
    try:
        return fetch_step(provider, snapshot, ctx, get_run_logger())
    except PricingError:
        raise  # its message is redacted already
    except Exception as exc:
        # Prefect stores a failed task's message in its database: redacted text only
        raise PricingError(f"{type(exc).__name__}: {exc}") from None


@task(task_run_name="load-and-publish")
def load_and_publish(path: Path, fetched: dict, source: str) -> pipeline.RunSummary:
    return pipeline.load_and_publish(path, fetched, source=source)


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
        for skip in p.skipped:
            lines.append(f"\n- {p.provider} skipped: {skip}")
    return "\n".join(lines)


@task(task_run_name="alerts-check", cache_policy=NO_CACHE)
def check_alerts(path: Path, cfg: Config) -> notify.CheckResult:
    return notify.check(path, cfg)


def publish_step(path: Path, cfg: Config) -> dict:
    from gpu_pricing import publish as pub

    result = pub.publish(
        path,
        cfg.publish.to,
        namespace=cfg.publish.namespace,
        catalog=pub.resolve_properties(cfg.publish.catalog, "publish.catalog"),
        properties=pub.resolve_properties(cfg.publish.properties, "publish.properties"),
        include_duckdb=cfg.publish.duckdb,
    )
    return result.to_dict()


def _publish_retryable(task, task_run, state) -> bool:
    """A storage or catalog hiccup is retried; a configuration problem is not."""
    try:
        state.result()
    except InvalidInput:
        return False
    except Exception:
        return True
    return False


@task(
    task_run_name="publish",
    cache_policy=NO_CACHE,
    retries=2,
    retry_delay_seconds=exponential_backoff(backoff_factor=10),
    retry_condition_fn=_publish_retryable,
)
def publish_warehouse(path: Path, cfg: Config) -> dict:
    return publish_step(path, cfg)


def _refresh(
    warehouse: str | None,
    snapshot: str | None,
    providers: list[str] | None,
    regions: list[str] | None,
    config: str | None,
    *,
    orchestrated: bool,
) -> pipeline.RunSummary:
    """The refresh, with each step a Prefect task (`orchestrated`, inside the flow) or a
    plain call."""
    log = get_run_logger() if orchestrated else logging.getLogger("flows.refresh")
    cfg = load_config(config)  # a bad config fails here, before the warehouse is touched
    path = cfg.warehouse_path(warehouse)
    names = providers or cfg.connector_names()
    contexts = {
        name: FetchContext(
            watermarks=pipeline.watermarks(path, name),
            regions=tuple(regions) if regions else cfg.regions_for(name),
        )
        for name in names
    }
    if orchestrated:
        futures = {n: fetch_provider.submit(n, snapshot, ctx) for n, ctx in contexts.items()}
        wait = {n: f.result for n, f in futures.items()}
    else:
        pool = ThreadPoolExecutor(max_workers=max(1, len(contexts)))
        jobs = {
            n: pool.submit(fetch_with_retries, n, snapshot, ctx, log) for n, ctx in contexts.items()
        }
        pool.shutdown(wait=False)
        wait = {n: j.result for n, j in jobs.items()}
    fetched: dict[str, list] = {}
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
    if orchestrated:
        summary = load_and_publish(path, fetched, source)
    else:
        summary = pipeline.load_and_publish(path, fetched, source=source)
    for p in summary.providers:
        p.fetch_seconds = seconds.get(p.provider, 0.0)
    try:  # the refresh is published: an alert problem is logged, never fatal
        checked = check_alerts(path, cfg) if orchestrated else notify.check(path, cfg)
    except Exception as exc:
        log.error("alerts check failed (the refresh itself is published): %s", exc)
        checked = None
    published = ""
    if cfg.publish.to and summary.exit_code != 3:
        try:
            doc = publish_warehouse(path, cfg) if orchestrated else publish_step(path, cfg)
            published = (
                f"Published {doc['publish_id']} to `{doc['to']}` ({len(doc['tables'])} tables)."
            )
        except Exception as exc:
            log.error(
                "publish to %s failed (the refresh itself is published): %s", cfg.publish.to, exc
            )
            published = f"**Publish to `{cfg.publish.to}` failed**: {exc}"
    if orchestrated:  # artifacts live in Prefect's database: redacted like all outward text
        create_table_artifact(
            key="gpu-pricing-refresh",
            table=redact_doc(
                [
                    {
                        **vars(p),
                        "status": p.status,
                        "failed": "; ".join(p.failed),
                        "skipped": "; ".join(p.skipped),
                    }
                    for p in summary.providers
                ]
            ),
            description=f"Refresh {summary.run_id}",
        )
        create_markdown_artifact(
            key="gpu-pricing-refresh-summary",
            markdown=redact(
                summary_markdown(summary)
                + "\n\n"
                + artifacts.refresh_markdown(path, checked)
                + (f"\n\n{published}" if published else "")
            ),
        )
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


@flow(name="gpu-pricing-refresh", log_prints=False)
def refresh(
    warehouse: str | None = None,
    snapshot: str | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    config: str | None = None,
) -> pipeline.RunSummary:
    install_logging()  # also in served runs, which Prefect starts in a new process
    return _refresh(warehouse, snapshot, providers, regions, config, orchestrated=True)


def refresh_direct(
    warehouse: str | None = None,
    snapshot: str | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    config: str | None = None,
) -> pipeline.RunSummary:
    """The same refresh without Prefect (no API configured: nothing would keep the run)."""
    return _refresh(warehouse, snapshot, providers, regions, config, orchestrated=False)


def prefect_api_url() -> str | None:
    """The Prefect API this process talks to (env, profile or .env), or None: then Prefect
    would start a temporary local server for each flow run."""
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


@dataclass
class Stopped:
    """How `serve` ended: the deployment paused, its scheduled runs removed."""

    deployment: str
    removed_runs: int
    cleanup_error: str | None = None


def _unschedule(deployment_id) -> int:
    """Pause the deployment (the server then deletes its auto-scheduled runs) and delete
    the scheduled runs left (runs asked for by hand): nothing is left waiting for a runner
    that has stopped. Returns how many scheduled runs there were."""
    from prefect.client.orchestration import get_client
    from prefect.client.schemas.filters import (
        DeploymentFilter,
        DeploymentFilterId,
        FlowRunFilter,
        FlowRunFilterState,
        FlowRunFilterStateType,
    )
    from prefect.client.schemas.objects import StateType

    def scheduled(client) -> list:
        return client.read_flow_runs(
            deployment_filter=DeploymentFilter(id=DeploymentFilterId(any_=[deployment_id])),
            flow_run_filter=FlowRunFilter(
                state=FlowRunFilterState(type=FlowRunFilterStateType(any_=[StateType.SCHEDULED]))
            ),
            limit=200,
        )

    with get_client(sync_client=True) as client:
        count = len(scheduled(client))
        client.pause_deployment(deployment_id)
        for _ in range(20):  # 200 a page; a schedule pre-creates up to ~100
            left = scheduled(client)
            if not left:
                break
            for run in left:
                client.delete_flow_run(run.id)
    return count


def serve_nightly(cfg: Config, *, name: str, warehouse: Path, snapshot: str | None) -> Stopped:
    """Register the nightly deployment (cron and time zone from the config; one run at a
    time, on top of the warehouse's own lock) and run its flow runs from this process until
    Ctrl-C or SIGTERM; then pause the deployment and remove its scheduled runs.

    Prefect's own `Flow.serve` stops on SIGTERM by calling an async stop from the signal
    handler (never awaited, a warning), and with a run in progress its clean-up never
    pauses the deployment, so every pre-created scheduled run stays behind. Here SIGTERM
    stops the runner as Ctrl-C does, and the clean-up is ours, after the runner ended."""
    import asyncio
    import signal

    from prefect.deployments.runner import EntrypointType
    from prefect.exceptions import TerminationSignal
    from prefect.runner import Runner
    from prefect.schedules import Cron

    main: list[asyncio.Task] = []

    class _Runner(Runner):
        def handle_sigterm(self, *args, **kwargs) -> None:
            # what asyncio does on Ctrl-C: cancel the main task, which unwinds the runner
            if main:
                main[0].get_loop().call_soon_threadsafe(main[0].cancel)

    async def serving() -> None:
        main.append(asyncio.current_task())
        await runner.start()

    runner = _Runner(name=name, pause_on_shutdown=False, limit=1)
    deployment_id = runner.add_flow(
        refresh,
        name=name,
        schedules=[Cron(cfg.schedule.cron, timezone=cfg.schedule.timezone)],
        concurrency_limit=1,
        parameters={
            "warehouse": str(Path(warehouse).resolve()),
            "snapshot": snapshot,
            "config": str(cfg.source.resolve()) if cfg.source else None,
        },
        description="gpu-pricing nightly refresh: fetch, publish, check alerts",
        tags=["gpu-pricing"],
        # import the flow by module, not by file: works from any working directory
        entrypoint_type=EntrypointType.MODULE_PATH,
    )
    full_name = f"{refresh.name}/{name}"
    print(
        f"serving {full_name} ({cfg.schedule.cron}, {cfg.schedule.timezone}) from "
        f"{prefect_api_url()}; run it now with `uv run prefect deployment run '{full_name}'`; "
        "Ctrl-C stops serving",
        flush=True,
    )
    previous = signal.getsignal(signal.SIGTERM)
    try:
        asyncio.run(serving())
    except (KeyboardInterrupt, asyncio.CancelledError, TerminationSignal):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    try:
        return Stopped(full_name, _unschedule(deployment_id))
    except Exception as exc:  # the server went away first: say so, keep the exit clean
        return Stopped(full_name, 0, redact(f"{type(exc).__name__}: {exc}"))
