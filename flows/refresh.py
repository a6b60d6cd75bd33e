"""The refresh as the Prefect flow `refresh` (served nightly, or from the command line when
a Prefect API is configured): the body of flows.direct with each step a Prefect task, so
runs, logs and artifacts are visible. A flow run leaves a table artifact and a markdown
summary (with the cheapest offers and the alert outcome). Without a Prefect API the
command line runs the same body directly (flows.direct), without importing Prefect.
"""

from __future__ import annotations

import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff

import connectors.registry  # noqa: F401 - builds every connector: redaction knows their credentials
from common.errors import InvalidInput, PricingError
from common.redact import install_logging, redact, redact_doc
from connectors.kit.page import FetchContext
from flows import artifacts, direct, pipeline
from flows.direct import (
    FETCH_RETRIES,
    FETCH_RETRY_DELAYS,
    FETCH_RETRY_JITTER,
    Fetched,
    Steps,
    fetch_step,
    summary_markdown,
)
from services import alerts
from services.config import Config


def _retryable(task, task_run, state) -> bool:  # Prefect's retry_condition_fn signature
    try:
        state.result()
    except Exception as exc:
        return direct.retryable(exc)
    return False


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


def _clear_frames(exc: BaseException | None, seen: set[int]) -> None:
    if exc is None or id(exc) in seen:
        return
    seen.add(id(exc))
    traceback.clear_frames(exc.__traceback__)
    _clear_frames(exc.__cause__, seen)
    _clear_frames(exc.__context__, seen)


@contextmanager
def _no_warehouse_kept_by_the_error() -> Iterator[None]:
    """A step that fails or is stopped (Ctrl-C, SIGTERM) keeps no local variable of the
    frames it ran through, in its exception or in those it chains (DuckDB's "Query
    interrupted" under a Ctrl-C). Prefect holds a crashed or failed run's exception, in its
    run state and engine, until the process ends: a DuckDB connection left in one of those
    frames then outlives DuckDB's module at exit, which prints "nanobind: leaked ..."."""
    try:
        yield
    except BaseException as exc:
        _clear_frames(exc, set())
        raise


@task(task_run_name="load-and-publish", cache_policy=NO_CACHE)
def load_and_publish(
    path: Path,
    fetched: dict,
    source: str,
    cfg: Config,
    accept_drop: tuple[str, ...] = (),
    full_check: bool = False,
) -> tuple[pipeline.RunSummary, alerts.CheckResult | None]:
    """Land, build, check the alerts on the build and publish (flows.direct)."""
    with _no_warehouse_kept_by_the_error():
        return direct.load_publish_and_check(path, fetched, source, cfg, accept_drop, full_check)


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
    with _no_warehouse_kept_by_the_error():
        return direct.publish_step(path, cfg)


def _fetch_as_tasks(contexts: dict[str, FetchContext], snapshot: str | None, log):
    futures = {n: fetch_provider.submit(n, snapshot, ctx) for n, ctx in contexts.items()}
    return {n: f.result for n, f in futures.items()}


def _artifacts(summary: pipeline.RunSummary, path: Path, checked, published: str) -> None:
    """Artifacts live in Prefect's database: redacted like all outward text."""
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


TASKS = Steps(
    log=get_run_logger,
    fetch=_fetch_as_tasks,
    load_and_publish=load_and_publish,
    publish=publish_warehouse,
    artifacts=_artifacts,
)


@flow(name="gpu-pricing-refresh", log_prints=False)
def refresh(
    warehouse: str | None = None,
    snapshot: str | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    config: str | None = None,
    accept_drop: list[str] | None = None,
    full_check: bool | None = None,
) -> pipeline.RunSummary:
    install_logging()  # also in served runs, which Prefect starts in a new process
    return direct.run_refresh(
        warehouse, snapshot, providers, regions, config, steps=TASKS, accept_drop=accept_drop,
        full_check=full_check,
    )


@dataclass
class Stopped:
    """How `serve` ended: the deployment paused, its scheduled runs removed."""

    deployment: str
    removed_runs: int
    cleanup_error: str | None = None


# How long after the pause the scheduled runs must stay gone: the server's scheduler may be
# inserting runs for the deployment it read before the pause (seen 0.4 s after, loaded)
_SETTLE_S = 2.0


def _unschedule(deployment_id) -> int:
    """Pause the deployment (the server then deletes its auto-scheduled runs) and delete
    the scheduled runs left (runs asked for by hand, and those the server's scheduler was
    inserting as the pause came), until none is left _SETTLE_S after the pause: nothing
    is left waiting for a runner that has stopped. Returns how many scheduled runs there
    were."""
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
        paused = time.monotonic()
        for _ in range(100):  # 200 a page; a schedule pre-creates up to ~100
            left = scheduled(client)
            for run in left:
                client.delete_flow_run(run.id)
            if not left:
                if time.monotonic() - paused >= _SETTLE_S:
                    break
                time.sleep(0.25)
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
    previous = signal.getsignal(signal.SIGTERM)
    try:  # from here on, Ctrl-C and SIGTERM stop serving cleanly
        print(
            f"serving {full_name} ({cfg.schedule.cron}, {cfg.schedule.timezone}) from "
            f"{direct.prefect_api_url()}; run it now with `uv run prefect deployment run '{full_name}'`; "
            "Ctrl-C stops serving",
            flush=True,
        )
        asyncio.run(serving())
    except (KeyboardInterrupt, asyncio.CancelledError, TerminationSignal):
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)
    try:
        return Stopped(full_name, _unschedule(deployment_id))
    except Exception as exc:  # the server went away first: say so, keep the exit clean
        return Stopped(full_name, 0, redact(f"{type(exc).__name__}: {exc}"))
