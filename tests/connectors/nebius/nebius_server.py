"""A local gRPC server speaking Nebius' published protos (the message classes the `nebius`
SDK ships), for the fetch tests and the demo pages: IAM TenantService and ProjectService,
compute PlatformService, billing CalculatorService. Values are illustrative."""

from __future__ import annotations

import json
import re
from concurrent import futures
from contextlib import contextmanager
from decimal import Decimal

import grpc
from nebius.api.nebius.billing import v1alpha1 as billing

# region -> (project id, [(platform, GPU memory, preemptibles allowed, presets)])
REGIONS = {
    "eu-north1": (
        "project-e00north",
        [
            ("gpu-h100-sxm", 80, True, ["1gpu-16vcpu-200gb", "8gpu-128vcpu-1600gb"]),
            ("gpu-l40s-a", 48, False, ["1gpu-8vcpu-32gb"]),
            ("cpu-d3", 0, False, ["4vcpu-16gb"]),
        ],
    ),
    "us-central1": (
        "project-e00us",
        [("gpu-h200-sxm", 141, True, ["1gpu-16vcpu-200gb", "8gpu-128vcpu-1600gb"])],
    ),
}
# platform -> (USD per GPU-hour on demand, preemptible)
PRICES = {
    "gpu-h100-sxm": ("2.95", "1.25"),
    "gpu-l40s-a": ("1.55", None),
    "gpu-h200-sxm": ("3.50", "1.45"),
}
TENANT = "tenant-e00demo"


def resources(preset: str) -> dict:
    """'8gpu-128vcpu-1600gb' -> gpu_count 8, vcpu_count 128, memory_gibibytes 1600."""
    found = {unit: int(n) for n, unit in re.findall(r"(\d+)(gpu|vcpu|gb)", preset)}
    return {"vcpu_count": found["vcpu"], "memory_gibibytes": found["gb"],
            "gpu_count": found.get("gpu", 0)}  # fmt: skip


def platform(name: str, memory: int, preemptible: bool, presets: list[str]) -> dict:
    spec: dict = {"presets": [{"name": p, "resources": resources(p)} for p in presets]}
    if memory:
        spec["gpu_memory_gigabytes"] = memory
    return {"metadata": {"id": f"computeplatform-{name}", "name": name}, "spec": spec,
            "status": {"allowed_for_preemptibles": preemptible}}  # fmt: skip


def cost(name: str, preset: str, spot: bool) -> str | None:
    on_demand, preemptible = PRICES.get(name, (None, None))
    per_gpu = preemptible if spot else on_demand
    return None if per_gpu is None else str(Decimal(per_gpu) * resources(preset)["gpu_count"])


class Server:
    """What the fake answered and saw: `calls` (service/method, authorization header)."""

    def __init__(self, tenants: int = 1, token: str | None = None, echo: bool = False) -> None:
        self.tenants = tenants
        self.token = token  # when set, any other bearer is UNAUTHENTICATED
        # when set, every call is UNAUTHENTICATED with the authorization header it carried
        # echoed in the status details and the trailing metadata (a leaky server)
        self.echo = echo
        self.calls: list[tuple[str, str]] = []
        self.address = ""

    def _tenants(self, request, context):
        items = [{"metadata": {"id": f"{TENANT}{i or ''}"}} for i in range(self.tenants)]
        return {"items": items}

    def _projects(self, request, context):
        assert request.parent_id == TENANT
        return {"items": [{"metadata": {"id": pid}, "status": {"region": region}}
                          for region, (pid, _) in REGIONS.items()]}  # fmt: skip

    def _platforms(self, request, context):
        (plats,) = [p for pid, p in REGIONS.values() if pid == request.parent_id]
        return {"items": [platform(*p) for p in plats]}

    def _estimate(self, request, context):
        instance = request.resource_spec.compute_instance_spec
        res = instance.spec.resources
        price = cost(res.platform, res.preset, instance.spec.HasField("preemptible"))
        if price is None:
            return {}
        return {"hourly_cost": {"general": {"total": {"cost": price, "cost_rounded": price}}}}

    def handlers(self) -> list:
        registry = billing._REGISTRY
        routes = {
            ("nebius.iam.v1.TenantService", "List"): self._tenants,
            ("nebius.iam.v1.ProjectService", "List"): self._projects,
            ("nebius.compute.v1.PlatformService", "List"): self._platforms,
            ("nebius.billing.v1alpha1.CalculatorService", "Estimate"): self._estimate,
        }
        by_service: dict[str, dict] = {}
        for (service, method), answer in routes.items():
            desc = registry.service_descriptor(service).methods_by_name[method]
            request_cls = registry.message_class(desc.input_type.full_name)
            response_cls = registry.message_class(desc.output_type.full_name)

            def handle(request, context, answer=answer, name=f"{service}/{method}",
                       response_cls=response_cls):  # fmt: skip
                meta = dict(context.invocation_metadata())
                self.calls.append((name, meta.get("authorization", "")))
                if self.echo:
                    auth = meta.get("authorization", "")
                    context.set_trailing_metadata((("x-echo-authorization", auth),))
                    context.abort(grpc.StatusCode.UNAUTHENTICATED, f"invalid IAM token {auth}")
                if self.token and meta.get("authorization") != f"Bearer {self.token}":
                    context.abort(grpc.StatusCode.UNAUTHENTICATED, "invalid IAM token")
                return response_cls.from_json(json.dumps(answer(request, context)))

            by_service.setdefault(service, {})[method] = grpc.unary_unary_rpc_method_handler(
                handle,
                request_deserializer=request_cls.FromString,
                response_serializer=lambda m: m.SerializeToString(),
            )
        return [grpc.method_handlers_generic_handler(s, m) for s, m in by_service.items()]


@contextmanager
def serve(tenants: int = 1, token: str | None = None, echo: bool = False):
    fake = Server(tenants, token, echo)
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    server.add_generic_rpc_handlers(fake.handlers())
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    fake.address = f"127.0.0.1:{port}"
    try:
        yield fake
    finally:
        server.stop(0)
