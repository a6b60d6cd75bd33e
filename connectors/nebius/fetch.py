"""Nebius fetch: gRPC through the `nebius` SDK, network only, messages as received.

- Auth: an IAM token from env `NEBIUS_IAM_TOKEN` (the SDK's standard variable), sent by
  the SDK as `authorization: Bearer ...`. No token: MissingCredentials (skipped).
- Calls: TenantService/List (exactly one tenant) -> ProjectService/List (one project per
  region) -> per region PlatformService/List(parent_id=project, page_size=999) -> per GPU
  preset CalculatorService/Estimate (a CreateInstanceRequest with the platform and preset;
  a second call with `preemptible` set where the platform allows preemptibles).
- One page per region: `{"region", "project_id", "platforms": [Platform...], "estimates":
  [{"platform", "preset", "preemptible", "response": EstimateResponse}]}`, the messages in
  protobuf JSON with proto field names. No token or header is stored.
- An SDK error fails its scope with the gRPC code and text (redacted): transient codes
  as SourceUnavailable, others (UNAUTHENTICATED ...) as UnexpectedResponse.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator

from common.errors import PricingError
from connectors.errors import SourceUnavailable, UnexpectedResponse
from connectors.kit.checks import env_credential
from connectors.kit.page import FetchContext, FetchFailure, Page, utc_now
from connectors.nebius import settings as s


def token_from_env() -> str:
    return env_credential(s.PROVIDER, s.ENDPOINT, s.TOKEN_ENV)


# gRPC core prints its own `I1125 ...` lines when GRPC_VERBOSITY allows (read when gRPC
# starts, so set before any channel exists); the command line's --debug sets INFO, and an
# operator's own setting wins over both
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")


def quiet_sdk() -> None:
    """Below --debug (the root logger under INFO), the SDK's own diagnostics stay off the
    console: the `nebius` loggers' logged tracebacks and its `deprecation` logger's
    notices. Its failures still reach the run as one FetchFailure line each."""
    if logging.getLogger().isEnabledFor(logging.INFO):
        return
    for name in ("nebius", "deprecation"):
        logging.getLogger(name).setLevel(logging.CRITICAL)


def make_sdk(token: str, address: str | None = None):
    """The SDK channel; `address` (host:port, plaintext) replaces Nebius' endpoints, for a
    local server in tests."""
    quiet_sdk()
    from nebius.sdk import SDK

    kwargs: dict = {"credentials": token, "user_agent_prefix": "gpu-pricing"}
    if address:
        from nebius.base.options import INSECURE
        from nebius.base.resolver import Constant

        kwargs |= {"resolver": Constant(address), "address_options": {address: [(INSECURE, True)]}}
    return SDK(**kwargs)


def _json(message) -> dict:
    return json.loads(message.to_json(preserving_proto_field_name=True))


def _estimate(calculator, project_id: str, platform: str, preset: str, spot: bool):
    from nebius.api.nebius.billing.v1alpha1 import EstimateRequest, ResourceSpec
    from nebius.api.nebius.common.v1 import ResourceMetadata
    from nebius.api.nebius.compute.v1 import (
        CreateInstanceRequest,
        InstanceSpec,
        PreemptibleSpec,
        ResourcesSpec,
    )

    spec = CreateInstanceRequest(
        metadata=ResourceMetadata(parent_id=project_id),
        spec=InstanceSpec(
            resources=ResourcesSpec(platform=platform, preset=preset),
            preemptible=PreemptibleSpec() if spot else None,
        ),
    )
    request = EstimateRequest(resource_spec=ResourceSpec(compute_instance_spec=spec))
    return calculator.estimate(request, per_retry_timeout=s.TIMEOUT).wait()


def region_projects(sdk) -> dict[str, str]:
    from nebius.api.nebius.iam.v1 import (
        ListProjectsRequest,
        ListTenantsRequest,
        ProjectServiceClient,
        TenantServiceClient,
    )

    tenants = TenantServiceClient(sdk).list(ListTenantsRequest(), per_retry_timeout=s.TIMEOUT)
    items = tenants.wait().items
    if len(items) != 1:
        raise SourceUnavailable(
            s.PROVIDER, s.ENDPOINT, f"expected 1 tenant for the token, found {len(items)}"
        )
    request = ListProjectsRequest(parent_id=items[0].metadata.id)
    projects = ProjectServiceClient(sdk).list(request, per_retry_timeout=s.TIMEOUT).wait()
    return {p.status.region: p.metadata.id for p in projects.items}


def fetch_region(sdk, region: str, project_id: str) -> Page:
    from nebius.api.nebius.billing.v1alpha1 import CalculatorServiceClient
    from nebius.api.nebius.compute.v1 import ListPlatformsRequest, PlatformServiceClient

    request = ListPlatformsRequest(parent_id=project_id, page_size=s.PAGE_SIZE)
    platforms = PlatformServiceClient(sdk).list(request, per_retry_timeout=s.TIMEOUT).wait()
    calculator = CalculatorServiceClient(sdk)
    estimates = [
        {
            "platform": platform.metadata.name,
            "preset": preset.name,
            "preemptible": spot,
            "response": _json(
                _estimate(calculator, project_id, platform.metadata.name, preset.name, spot)
            ),
        }
        for platform in platforms.items
        for preset in platform.spec.presets
        if preset.resources.gpu_count
        for spot in (False, True)
        if not spot or platform.status.allowed_for_preemptibles
    ]
    body = {
        "region": region,
        "project_id": project_id,
        "platforms": [_json(p) for p in platforms.items],
        "estimates": estimates,
    }
    return Page(
        provider=s.PROVIDER,
        endpoint=s.ENDPOINT,
        fetched_at=utc_now(),
        request={"region": region, "service": "nebius.billing.v1alpha1.CalculatorService"},
        body=body,
    )


def _failure(scope: str, exc: Exception) -> FetchFailure:
    """An SDK error as ours: transient gRPC codes (and errors without a code: transport)
    are SourceUnavailable; any other code (UNAUTHENTICATED, PERMISSION_DENIED,
    INVALID_ARGUMENT ...) is UnexpectedResponse, named by its code."""
    if isinstance(exc, PricingError):
        return FetchFailure(s.PROVIDER, s.ENDPOINT, scope, exc)
    code = getattr(getattr(exc, "status", None), "code", None)
    name = getattr(code, "name", None)
    if name is None or name in s.TRANSIENT_CODES:
        error: PricingError = SourceUnavailable(
            s.PROVIDER, s.ENDPOINT, f"{name or type(exc).__name__}: {exc}"
        )
    else:
        error = UnexpectedResponse(s.PROVIDER, s.ENDPOINT, f"{name}: {exc}")
    return FetchFailure(s.PROVIDER, s.ENDPOINT, scope, error)


def fetch_live(ctx: FetchContext) -> Iterator[Page | FetchFailure]:
    try:
        token = token_from_env()
    except PricingError as exc:
        yield FetchFailure(s.PROVIDER, s.ENDPOINT, "", exc)
        return
    sdk = make_sdk(token, ctx.settings.get("nebius_address"))
    try:
        try:
            projects = region_projects(sdk)
        except Exception as exc:  # the SDK's errors: one failed scope, redacted
            yield _failure("", exc)
            return
        for region, project_id in sorted(projects.items()):
            try:
                yield fetch_region(sdk, region, project_id)
            except Exception as exc:
                yield _failure(region, exc)
    finally:
        sdk.sync_close(timeout=s.TIMEOUT)
