"""AWS: calling boto3 (throttling and 5xx retried with backoff, errors mapped to
connectors.errors), serialising its responses to JSON, the regions to walk and the
clients of a session."""

from __future__ import annotations

import logging
import os
import random
import re
import time
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from common.redact import register
from connectors.aws import settings as s
from connectors.errors import (
    ConnectorError,
    MissingCredentials,
    SourceUnavailable,
    UnexpectedResponse,
)
from connectors.kit.http import RetryPolicy
from connectors.kit.page import FetchContext

log = logging.getLogger(__name__)


DEFAULT_POLICY = RetryPolicy(
    attempts=s.RETRY_ATTEMPTS, backoff_s=s.RETRY_BACKOFF_S, max_backoff_s=s.RETRY_MAX_BACKOFF_S
)


# --- serialising SDK responses ---------------------------------------------------------


def jsonable(value: Any) -> Any:
    """A boto3 response as JSON values: datetimes become ISO 8601 strings (UTC)."""
    if isinstance(value, datetime):
        if value.tzinfo is not None:
            value = value.astimezone(UTC)
            return value.isoformat().replace("+00:00", "Z")
        return value.isoformat() + "Z"
    if isinstance(value, dict):
        return {k: jsonable(v) for k, v in value.items() if k != "ResponseMetadata"}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return value


def iso(at: datetime) -> str:
    return at.strftime("%Y-%m-%dT%H:%M:%SZ")


# --- calling boto3 with retries and our error types ------------------------------------


def backoff(policy: RetryPolicy, attempt: int) -> float:
    return random.uniform(0, min(policy.max_backoff_s, policy.backoff_s * 2 ** (attempt - 1)))


def call(
    operation: Callable[..., dict],
    *,
    endpoint: str,
    region: str,
    policy: RetryPolicy = DEFAULT_POLICY,
    **params: Any,
) -> dict:
    """One SDK call: throttling, 5xx and connection errors retried; the rest mapped to
    connectors.errors (the message names region, operation and AWS error code)."""
    from botocore.exceptions import (
        BotoCoreError,
        ClientError,
        NoCredentialsError,
        ReadTimeoutError,
    )
    from botocore.exceptions import (
        ConnectionError as BotoConnectionError,
    )
    from botocore.parsers import ResponseParserError

    name = getattr(operation, "__name__", "call")
    last: ConnectorError | None = None
    for attempt in range(1, policy.attempts + 1):
        try:
            return operation(**params)
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode") or 0
            where = f"{name} in {region}: {code or 'error'}"
            if code in s.THROTTLING_CODES or status >= 500:
                last = SourceUnavailable(s.PROVIDER, endpoint, f"{where} (HTTP {status})")
            elif code in s.REGION_DISABLED_CODES:
                raise UnexpectedResponse(
                    s.PROVIDER,
                    endpoint,
                    f"{where}: region not enabled for this account (opt-in region) or the "
                    "credentials lack permission",
                    excerpt=str(error.get("Message", "")),
                ) from exc
            else:
                raise UnexpectedResponse(
                    s.PROVIDER, endpoint, where, excerpt=str(error.get("Message", ""))
                ) from exc
        except NoCredentialsError as exc:
            raise MissingCredentials(
                s.PROVIDER, endpoint, "no AWS credentials in the default chain"
            ) from exc
        except (BotoConnectionError, ReadTimeoutError) as exc:
            last = SourceUnavailable(
                s.PROVIDER, endpoint, f"{name} in {region}: {type(exc).__name__}"
            )
        except ResponseParserError as exc:
            # a body that is not AWS's XML/JSON (a proxy's page, an empty answer): one
            # line, the body cut to an excerpt
            raise UnexpectedResponse(
                s.PROVIDER,
                endpoint,
                f"{name} in {region}: the response is not an AWS {name} answer",
                excerpt=str(exc),
            ) from None
        except BotoCoreError as exc:
            raise SourceUnavailable(
                s.PROVIDER, endpoint, f"{name} in {region}: {type(exc).__name__}: {str(exc)[:300]}"
            ) from exc
        if attempt < policy.attempts:
            wait = backoff(policy, attempt)
            log.warning(
                "%s (attempt %d/%d), retrying in %.2fs", last, attempt, policy.attempts, wait
            )
            time.sleep(wait)
    assert last is not None
    raise last


# --- regions, clients, the live walk ------------------------------------------------------


def select_regions(available: list[str], ctx: FetchContext) -> tuple[str, ...]:
    """EC2 regions to walk: botocore's list (or the requested subset of it), minus the
    skip-list and anything shaped like a Local Zone code."""
    skip = set(s.DEFAULT_SKIP_REGIONS)
    skip |= set(ctx.settings.get("aws_skip_regions", ()))
    skip |= {r.strip() for r in os.environ.get(s.SKIP_REGIONS_ENV, "").split(",") if r.strip()}
    wanted = list(ctx.regions) if ctx.regions else list(available)
    unknown = [r for r in wanted if r not in available]
    if unknown:
        log.warning("aws: not EC2 regions (botocore's list), not fetched: %s", ", ".join(unknown))
    return tuple(
        r
        for r in wanted
        if r in available and r not in skip and not re.match(s.LOCAL_ZONE_PATTERN, r)
    )


class BotoClients:
    """boto3 clients from one session (the default credential chain)."""

    def __init__(self, session: Any = None) -> None:
        import boto3
        from botocore.config import Config

        self.session = session or boto3.Session()
        self.config = Config(
            connect_timeout=s.CONNECT_TIMEOUT_S,
            read_timeout=s.READ_TIMEOUT_S,
            retries={"mode": "standard", "max_attempts": 1},
        )

    def has_credentials(self) -> bool:
        credentials = self.session.get_credentials()
        if credentials is None:
            return False
        # keys from a profile or a credential process are masked in every output, as the
        # environment's are
        try:
            frozen = credentials.get_frozen_credentials()
        except Exception:  # a refresh that fails here fails again, with its error, in the walk
            return True
        for value in (frozen.access_key, frozen.secret_key, frozen.token):
            register(value)
        return True

    def available_regions(self) -> list[str]:
        return list(self.session.get_available_regions("ec2"))

    def ec2(self, region: str) -> Any:
        return self.session.client("ec2", region_name=region, config=self.config)

    def pricing(self) -> Any:
        return self.session.client("pricing", region_name=s.PRICING_REGION, config=self.config)
