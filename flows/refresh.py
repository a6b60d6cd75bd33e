"""The nightly refresh flow: fetch every provider concurrently, then one writer lands,
parses, stages, merges history, rebuilds views, asserts and publishes.

Retries (exponential backoff with jitter) sit on the fetch task only, and only for
retryable errors; a provider whose fetch fails is recorded in `_loads` and the others go
on. Every run leaves a table artifact and a markdown summary (with the cheapest offers
and the alert outcome). After publishing, the budgets and rate rules of gpu-pricing.toml
are checked (flows.alerts); an alert failure is logged and never fails the refresh.
When gpu-pricing.toml sets `[publish] to`, the last step publishes the warehouse there as
Iceberg tables (gpu_pricing.publish); a publish failure is logged, shown in the summary and
retried at the next run (publishing is idempotent), and never undoes the refresh.
"""

from __future__ import annotations

from pathlib import Path

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.cache_policies import NO_CACHE
from prefect.tasks import exponential_backoff

from connectors._page import FetchContext, FetchFailure
from connectors.errors import InvalidInput, SourceUnavailable
from flows import alerts, pipeline, report
from flows.config import Config
from flows.config import load as load_config


def _retryable(task, task_run, state) -> bool:  # Prefect's retry_condition_fn signature
    try:
        state.result()
    except SourceUnavailable:
        return True
    except Exception:
        return False
    return False


@task(
    retries=2,
    retry_delay_seconds=exponential_backoff(backoff_factor=10),
    retry_jitter_factor=0.5,
    retry_condition_fn=_retryable,
    task_run_name="fetch-{provider}",
)
def fetch_provider(provider: str, snapshot: str | None, ctx: FetchContext) -> list:
    return pipeline.fetch_pages(provider, snapshot, ctx)


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
        "| provider | status | pages | unchanged | offers | rejected | excluded | unknown GPU |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in summary.providers:
        lines.append(
            f"| {p.provider} | {p.status} | {p.fetched} | {p.unchanged} | {p.loaded} | "
            f"{p.rejected} | {p.excluded} | {p.unknown_gpu} |"
        )
    for p in summary.providers:
        for failure in p.failed:
            lines.append(f"\n- **{p.provider} failed**: {failure}")
        for skip in p.skipped:
            lines.append(f"\n- {p.provider} skipped: {skip}")
    return "\n".join(lines)


@task(task_run_name="alerts-check", cache_policy=NO_CACHE)
def check_alerts(path: Path, cfg: Config) -> alerts.CheckResult:
    return alerts.check(path, cfg)


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


@flow(name="gpu-pricing-refresh", log_prints=False)
def refresh(
    warehouse: str | None = None,
    snapshot: str | None = None,
    providers: list[str] | None = None,
    regions: list[str] | None = None,
    config: str | None = None,
) -> pipeline.RunSummary:
    log = get_run_logger()
    cfg = load_config(config)  # a bad config fails here, before the warehouse is touched
    path = cfg.warehouse_path(warehouse)
    names = providers or cfg.provider_names()
    futures = {}
    for name in names:
        ctx = FetchContext(
            watermarks=pipeline.watermarks(path, name),
            regions=tuple(regions) if regions else cfg.regions_for(name),
        )
        futures[name] = fetch_provider.submit(name, snapshot, ctx)
    fetched: dict[str, list] = {}
    for name, future in futures.items():
        try:
            fetched[name] = future.result()
        except Exception as exc:  # one failing provider does not fail the others
            log.error("fetch %s failed: %s", name, exc)
            fetched[name] = [FetchFailure(name, "*", "", exc)]
    summary = load_and_publish(path, fetched, snapshot or "live")
    try:  # the refresh is published: an alert problem is logged, never fatal
        checked = check_alerts(path, cfg)
    except Exception as exc:
        log.error("alerts check failed (the refresh itself is published): %s", exc)
        checked = None
    published = ""
    if cfg.publish.to and summary.exit_code != 3:
        try:
            doc = publish_warehouse(path, cfg)
            published = (
                f"Published {doc['publish_id']} to `{doc['to']}` ({len(doc['tables'])} tables)."
            )
        except Exception as exc:
            log.error(
                "publish to %s failed (the refresh itself is published): %s", cfg.publish.to, exc
            )
            published = f"**Publish to `{cfg.publish.to}` failed**: {exc}"
    create_table_artifact(
        key="gpu-pricing-refresh",
        table=[
            {
                **vars(p),
                "status": p.status,
                "failed": "; ".join(p.failed),
                "skipped": "; ".join(p.skipped),
            }
            for p in summary.providers
        ],
        description=f"Refresh {summary.run_id}",
    )
    create_markdown_artifact(
        key="gpu-pricing-refresh-summary",
        markdown=summary_markdown(summary)
        + "\n\n"
        + report.refresh_markdown(path, checked)
        + (f"\n\n{published}" if published else ""),
    )
    for p in summary.providers:
        log.info(
            "%s: %s, %d pages (%d unchanged), %d offers, %d rejected",
            p.provider,
            p.status,
            p.fetched,
            p.unchanged,
            p.loaded,
            p.rejected,
        )
    return summary


def serve_nightly(cfg: Config, *, name: str, warehouse: Path, snapshot: str | None) -> None:
    """Register the nightly deployment (cron and time zone from the config; one run at a
    time, on top of the warehouse's own lock) and run its flow runs from this process."""
    from prefect.deployments.runner import EntrypointType
    from prefect.schedules import Cron

    refresh.serve(
        name=name,
        schedules=[Cron(cfg.schedule.cron, timezone=cfg.schedule.timezone)],
        global_limit=1,
        limit=1,
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
