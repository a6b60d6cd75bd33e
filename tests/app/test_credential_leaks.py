"""No credential reaches an output, the warehouse, a snapshot or Prefect's database.

Distinctive fake credentials sit in the environment (AWS keys and session token, the
Google, Lambda, RunPod and Azure secrets, an Apprise webhook URL with a user, a password
and a token). One local server answers every provider the way misbehaving APIs do:
400/401/403 responses that echo back what they were sent (the Authorization header, the
API key header, the full URL with its query) in the body and in the headers; Azure's
answer carries a SAS-signed URL (`sig=`), and the two keyless providers (Vast.ai, OCI)
answer with every credential of the test in their error body. The providers added later
are driven the same way: Hyperstack, FluidStack, Seeweb, Hot Aisle, JarvisLabs and
DigitalOcean get their key echoed bare; Verda's OAuth2 token endpoint hands out a bearer
token that the API then echoes with the client secret; Crusoe's signed `Authorization`
(access key and request signature) is echoed; Vultr and CloudRift (keyless) echo every
secret; a local gRPC server fails every Nebius call UNAUTHENTICATED with the IAM token in
its status details and trailing metadata. Then the real commands run through `gpu_pricing.cli.main` (as the `gpu-pricing` script
does), in two processes of their own (one for the commands without Prefect, one for those
through it), each command's stdout and stderr captured apart, with every connector pointed
at the local server: `snapshot record` (text and --json), `refresh`
(text and --json, against a Prefect server started for the test, so flow and task logs,
states and artifacts land in a test-scoped Prefect database), the refresh flow called
directly, and `alerts check` (text and --json) with a webhook target that fails. Every
file under the test's directory (warehouses, snapshot directories, the download cache,
the Prefect home and its database) is searched byte for byte, the warehouses also table by
table through DuckDB (whose string compression could hide a value from a byte search), and
so are stdout and stderr of every command.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from html import escape
from pathlib import Path
from urllib.parse import quote

import pytest
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from tests._processes import free_port
from warehouse import db

# slow: a Prefect server and every command in its own process (the first test's setup
# runs them all: minutes on a loaded 2-core machine, beyond the suite's 300 s per test)
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

# Every secret carries the marker, so a partial echo (a cut excerpt) is found as well.
MARKER = "leaktest"
HOOK_USER, HOOK_PASS, HOOK_TOKEN = "whuser", "LeakTestHookPass01", "LeakTestHookToken01"
SAS_SIG = "LeakTestSasSig0123456789abcdef"
SECRETS = {
    "AWS_ACCESS_KEY_ID": "AKIA" + "LEAKTEST00000001",  # assembled: no key shape in the tree
    "AWS_SECRET_ACCESS_KEY": "LeakTestAwsSecret/0123456789abcdefghijklmn",
    "AWS_SESSION_TOKEN": "LeakTestAwsSessionToken0123456789",
    "GOOGLE_API_KEY": "AIzaLeakTestGoogleKey0123456789abcdefg",
    "LAMBDA_API_KEY": "secret_lambda_LeakTestLambdaKey01",
    "RUNPOD_API_KEY": "LeakTestRunpodKey0123456789",
    "AZURE_CLIENT_SECRET": "LeakTestAzureClientSecret01",
    "HYPERSTACK_API_KEY": "LeakTestHyperstackKey0123456789",
    "VERDA_CLIENT_SECRET": "LeakTestVerdaClientSecret0123456789",
    "DIGITALOCEAN_TOKEN": "dop_v1_leaktestdigitalocean0123456789",
    "CRUSOE_ACCESS_KEY": "LeakTestCrusoeAccessKey01",
    "CRUSOE_SECRET_KEY": "LeakTestCrusoeSecretKey0123456789abcdef",  # URL-safe base64
    "HOTAISLE_API_KEY": "LeakTestHotaisleKey0123456789",
    "JL_API_KEY": "LeakTestJarvislabsKey0123456789",
    "FLUIDSTACK_API_KEY": "LeakTestFluidstackKey0123456789",
    "SEEWEB_API_TOKEN": "LeakTestSeewebToken0123456789",
    "NEBIUS_IAM_TOKEN": "LeakTestNebiusIamToken0123456789",
}
# Not secrets (sent in paths and bodies, shown in URLs): no marker in them.
PLAIN_ENV = {
    "VERDA_CLIENT_ID": "verda-client-0001",
    "CRUSOE_PROJECT_ID": "crusoe-project-0001",
    "HOTAISLE_TEAM_HANDLE": "hotaisle-team-0001",
}
# The bearer token Verda's OAuth2 token endpoint hands out (never in the environment).
VERDA_ACCESS_TOKEN = "LeakTestVerdaAccessToken0123456789"
# Crusoe's request signatures (HMAC of each request), as the server received them.
CRUSOE_SIGNATURES: list[str] = []
HOOK_ENV = "GPU_PRICING_LEAK_HOOK"
# The keyed providers added after the first providers, each driven against the server.
NEW_KEYED = ("hyperstack", "verda", "digitalocean", "crusoe", "hotaisle", "jarvislabs",
             "fluidstack", "seeweb", "nebius")  # fmt: skip


def needles() -> list[bytes]:
    values = [*SECRETS.values(), HOOK_PASS, HOOK_TOKEN, SAS_SIG, VERDA_ACCESS_TOKEN]
    values += CRUSOE_SIGNATURES
    basic = base64.b64encode(f"{HOOK_USER}:{HOOK_PASS}".encode()).decode()
    forms = {v for value in values for v in (value, quote(value, safe=""))} | {basic, MARKER}
    return sorted(f.lower().encode() for f in forms)


def leaks(blob: bytes | str) -> list[str]:
    data = (blob.encode() if isinstance(blob, str) else blob).lower()
    return [n.decode() for n in needles() if n in data]


# -- the local server ---------------------------------------------------------------------


def every_secret() -> str:
    return " ".join(f"{k}={v}" for k, v in SECRETS.items())


def echo(request: Request) -> Response:
    """What each provider's API answers when it rejects a request, echoing what it got."""
    auth = request.headers.get("Authorization", "")
    token = request.headers.get("X-Amz-Security-Token", "")
    url = request.url
    echoed = {"X-Echo-Authorization": auth, "X-Echo-Url": url, "WWW-Authenticate": auth}
    path = request.path
    if path.startswith("/azure"):  # a signed (SAS) link in the error, as a proxy may give
        signed = f"{url.split('?')[0]}?sv=2024-05-04&se=2030-01-01&sp=r&sig={SAS_SIG}"
        return Response(f"Signature did not match for {signed}; request was {url}", 400, echoed)
    if path.startswith("/lambda"):
        message = f"API key was invalid, expired, or deleted ({auth})"
        body = {"error": {"code": "global/invalid-api-key", "message": message}}
        return Response(json.dumps(body), 401, echoed, content_type="application/json")
    if path.startswith("/runpod"):
        return Response(f"Unauthorized: api key {auth}", status=401, headers=echoed)
    if path.startswith("/v1/services"):  # GCP Cloud Billing Catalog REST
        key = request.headers.get("x-goog-api-key", "")
        message = f"API key not valid: {url}?key={key} (x-goog-api-key: {key})"
        body = {"error": {"code": 400, "message": message, "status": "INVALID_ARGUMENT"}}
        return Response(json.dumps(body), 400, echoed, content_type="application/json")
    if path.startswith(("/vastai", "/oci")):
        return Response(f"Forbidden. You are: {every_secret()} {auth}", 403, echoed)
    if path.startswith("/hooks"):  # the Apprise JSON webhook target
        return Response(f"Unauthorized {auth} {url}", status=401, headers=echoed)
    if path.startswith(("/vultr", "/cloudrift")):  # keyless: every secret of the test
        return Response(f"Forbidden. You are: {every_secret()} {auth}", 403, echoed)
    if path.startswith("/verda"):  # OAuth2 client credentials, then a bearer token
        if path.endswith("/oauth2/token"):
            body = {"access_token": VERDA_ACCESS_TOKEN, "refresh_token": VERDA_ACCESS_TOKEN,
                    "token_type": "Bearer", "expires_in": 3600, "scope": "cloud-api-v1"}  # fmt: skip
            return Response(json.dumps(body), 200, content_type="application/json")
        secret = PLAIN_ENV["VERDA_CLIENT_ID"] + ":" + SECRETS["VERDA_CLIENT_SECRET"]
        token = auth.removeprefix("Bearer ")
        message = f"Invalid or expired token {token} (issued to client {secret})"
        body = {"code": "unauthorized_request", "message": message}
        return Response(json.dumps(body), 401, echoed, content_type="application/json")
    if path.startswith("/crusoe"):  # Authorization: Bearer 1.0:<access key>:<signature>
        _, access, sig = auth.removeprefix("Bearer ").split(":")
        CRUSOE_SIGNATURES.append(sig)
        message = f"signature {sig} does not match for access key {access} ({url})"
        body = {"code": "unauthorized", "message": message}
        return Response(json.dumps(body), 401, echoed, content_type="application/json")
    if path.startswith("/hyperstack"):  # werkzeug drops its `api_key` header (an underscore)
        sent = SECRETS["HYPERSTACK_API_KEY"]  # so the key the client holds is echoed
        body = {"status": False, "message": f"Unauthorized: {sent} is not a valid api_key"}
        return Response(json.dumps(body), 401, echoed, content_type="application/json")
    keys = {  # the header each keyed REST provider sends its key in, echoed bare
        "/fluidstack": "api-key", "/seeweb": "X-APITOKEN",
        "/hotaisle": "Authorization", "/jarvislabs": "Authorization",
        "/digitalocean": "Authorization",
    }  # fmt: skip
    for prefix, header in keys.items():
        if path.startswith(prefix):
            sent = request.headers.get(header, "").split(" ")[-1]
            message = f"Unauthorized: {sent} is not a valid key ({header}: {sent})"
            body = {"status": False, "message": message, "id": "unauthorized"}
            return Response(json.dumps(body), 401, {"X-Echo-Key": sent, **echoed},
                            content_type="application/json")  # fmt: skip
    if path.startswith("/aws/"):  # the public Spot Advisor and offer index
        return Response("Not found", status=404)
    if "X-Amz-Target" in request.headers:  # the Price List API (JSON 1.1 protocol)
        message = f"Signature invalid. Authorization={auth} X-Amz-Security-Token={token}"
        body = {"__type": "AccessDeniedException", "message": message}
        return Response(json.dumps(body), 400, echoed, content_type="application/x-amz-json-1.1")
    message = escape(f"Signature invalid. Authorization={auth} X-Amz-Security-Token={token}")
    xml = (  # EC2 (query protocol)
        "<?xml version='1.0' encoding='UTF-8'?><Response><Errors><Error><Code>AuthFailure"
        f"</Code><Message>{message}</Message></Error></Errors><RequestID>r-1</RequestID></Response>"
    )
    return Response(xml, status=401, headers=echoed, content_type="text/xml")


# Points each connector at the local server, then runs the command line (or the flow).
LAUNCHER = textwrap.dedent(
    """
    import functools, json, os, sys

    base = os.environ["LEAK_SERVER"]
    from connectors.azure import settings as azure
    from connectors.lambdalabs import settings as lambdalabs
    from connectors.oci import settings as oci
    from connectors.runpod import settings as runpod
    from connectors.vastai import settings as vastai
    from connectors.aws import fetch as aws
    from connectors.gcp import fetch as gcp

    azure.RETAIL_URL = base + "/azure/api/retail/prices"
    lambdalabs.INSTANCE_TYPES_URL = base + "/lambda/api/v1/instance-types"
    runpod.GRAPHQL_URL = base + "/runpod/graphql"
    vastai.BUNDLES_URL = base + "/vastai/api/v0/bundles/"
    oci.PRODUCTS_URL = base + "/oci/products/"
    aws.fetch_all = functools.partial(
        aws.fetch_all, advisor_url=base + "/aws/advisor.json", offers_base_url=base + "/aws"
    )
    gcp.client_from_env = functools.partial(gcp.client_from_env, api_endpoint=base)

    from connectors.cloudrift import settings as cloudrift
    from connectors.crusoe import settings as crusoe
    from connectors.digitalocean import settings as digitalocean
    from connectors.fluidstack import settings as fluidstack
    from connectors.hotaisle import settings as hotaisle
    from connectors.hyperstack import settings as hyperstack
    from connectors.jarvislabs import settings as jarvislabs
    from connectors.nebius import fetch as nebius
    from connectors.seeweb import settings as seeweb
    from connectors.verda import settings as verda
    from connectors.vultr import settings as vultr

    hyperstack.PRICEBOOK_URL = base + "/hyperstack/v1/pricebook"
    verda.BASE_URL = base + "/verda/v1"
    digitalocean.SIZES_URL = base + "/digitalocean/v2/sizes"
    vultr.API_URL = base + "/vultr/v2"
    cloudrift.INSTANCE_TYPES_URL = base + "/cloudrift/api/v1/instance-types/list"
    crusoe.API_URL = base + "/crusoe"
    hotaisle.API_URL = base + "/hotaisle/api"
    jarvislabs.SERVER_META_URL = base + "/jarvislabs/misc/server_meta"
    fluidstack.CONFIGURATIONS_URL = base + "/fluidstack/list_available_configurations"
    seeweb.PLANS_URL = base + "/seeweb/ecs/v2/plans"
    make_sdk = nebius.make_sdk  # the local gRPC server instead of Nebius' endpoints
    nebius.make_sdk = lambda token, address=None: make_sdk(token, os.environ["LEAK_NEBIUS"])

    import logging, traceback

    # Each command of the list runs in turn in this process, its output (file
    # descriptors 1 and 2, so log handlers and C-level writes too) in files of its own,
    # and the Python streams and root handlers put back as a fresh process has them.
    commands, out = json.loads(sys.argv[1]), sys.argv[2]
    streams, handlers = (sys.stdout, sys.stderr), list(logging.root.handlers)
    saved = os.dup(1), os.dup(2)
    codes = {}
    for index, (name, args) in enumerate(commands):
        sys.stdout, sys.stderr = streams
        logging.root.handlers[:] = handlers
        with open(f"{out}/{index}.out", "wb") as o, open(f"{out}/{index}.err", "wb") as e:
            os.dup2(o.fileno(), 1)
            os.dup2(e.fileno(), 2)
            code = 0
            try:
                if args[0] == "--flow":
                    from flows.refresh import refresh

                    refresh(**json.loads(args[1]))
                else:
                    from gpu_pricing.cli import main

                    sys.argv = ["gpu-pricing", *args]
                    main()
            except SystemExit as exit:
                code = exit.code if isinstance(exit.code, int) else int(exit.code is not None)
            except BaseException:
                traceback.print_exc()
                code = 1
            for stream in (sys.stdout, sys.stderr, *streams):
                stream.flush()
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
        codes[name] = code
    with open(f"{out}/codes.json", "w") as f:
        json.dump(codes, f)
    """
)


@pytest.fixture(scope="module")
def server():
    httpserver = HTTPServer(host="127.0.0.1", port=free_port())
    httpserver.expect_request(__import__("re").compile(".*")).respond_with_handler(echo)
    httpserver.start()
    yield httpserver
    httpserver.clear()
    httpserver.stop()


@pytest.fixture(scope="module")
def nebius_server():
    """Nebius' gRPC services, answering every call UNAUTHENTICATED with the IAM token
    echoed in the status details and the trailing metadata."""
    from tests.connectors.nebius.nebius_server import serve

    with serve(echo=True) as fake:
        yield fake


@pytest.fixture(scope="module")
def prefect_server(tmp_path_factory):
    """A Prefect server of the test's own (its database under a temporary PREFECT_HOME);
    yields (home, api, process, wait): it starts in the background, `wait()` returns once
    it answers (the commands that need no Prefect run meanwhile)."""
    home = tmp_path_factory.mktemp("prefect_home")
    port = free_port()
    env = {
        **os.environ,
        "PREFECT_HOME": str(home),
        "PREFECT_UI_ENABLED": "false",
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
    }
    proc = subprocess.Popen(
        [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
         "--port", str(port)],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    api = f"http://127.0.0.1:{port}/api"

    def wait() -> None:
        deadline = time.monotonic() + 300  # a loaded 2-core machine takes its time
        while True:
            try:
                with urllib.request.urlopen(f"{api}/health", timeout=2) as response:
                    if response.status == 200:
                        return
            except OSError:
                pass
            if proc.poll() is not None:
                pytest.fail(f"the test's Prefect server exited with {proc.returncode}")
            if time.monotonic() > deadline:
                proc.kill()
                pytest.fail("the test's Prefect server did not answer within 300 s")
            time.sleep(0.5)

    yield home, api, proc, wait
    if proc.poll() is None:
        proc.terminate()
        proc.wait(30)


ALERTS_CONFIG = f"""
[[notify]]
name = "ops-webhook"
url_env = "{HOOK_ENV}"

[[rules]]
name = "h100-above-1"
kind = "price_above"
gpu = "H100"
memory_gib = 80
pricing_model = "on_demand"
usd_per_gpu_hour = 1.0
providers = ["azure"]
"""


@pytest.fixture(scope="module")
def leak_run(tmp_path_factory, server, nebius_server, prefect_server, demo_counted_warehouse):
    """Runs every command once; returns the outputs and the directory everything went to.
    Two lanes run side by side, each in order: the commands without Prefect (snapshot
    record, then alerts check on their own warehouse) while the Prefect server starts and
    the refreshes run through it (each on the same warehouse, one after the other)."""
    home, api, proc, wait_for_prefect = prefect_server
    work = tmp_path_factory.mktemp("leak_run")
    launcher = tmp_path_factory.mktemp("launcher") / "launch.py"
    launcher.write_text(LAUNCHER)
    config = launcher.parent / "gpu-pricing.toml"
    config.write_text(ALERTS_CONFIG)
    base = f"http://127.0.0.1:{server.port}"
    hook = f"json://{HOOK_USER}:{HOOK_PASS}@127.0.0.1:{server.port}/hooks/{HOOK_TOKEN}"
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "AZURE_", "PREFECT_"))
    }
    env.update(SECRETS)
    env.update(PLAIN_ENV)
    env.update(
        {
            HOOK_ENV: hook,
            "LEAK_SERVER": base,
            "LEAK_NEBIUS": nebius_server.address,
            "AWS_ENDPOINT_URL": base,
            "AWS_CONFIG_FILE": str(work / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(work / "no-aws-credentials"),
            "AWS_EC2_METADATA_DISABLED": "true",
            "AZURE_TENANT_ID": "00000000-0000-0000-0000-000000000000",
            "AZURE_CLIENT_ID": "00000000-0000-0000-0000-000000000001",
            "GPU_PRICING_CACHE_DIR": str(work / "cache"),
            "PREFECT_HOME": str(home),
            "PREFECT_API_URL": api,
            "PREFECT_LOGGING_LEVEL": "INFO",
            "PREFECT_LOGGING_EXTRA_LOGGERS": "connectors,flows,gpu_pricing,apprise",
            "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        }
    )
    warehouse = work / "gpu_pricing.duckdb"
    recorded = work / "recorded.duckdb"  # no warehouse yet: the look-back windows apply
    alerts_warehouse = work / "alerts.duckdb"
    # every demo price counted: the Azure H100 prices the rule watches are illustrative in
    # the demo, which a rate rule never reads (then nothing would fire and be delivered)
    shutil.copy(demo_counted_warehouse, alerts_warehouse)
    region = ["--regions", "us-east-1"]
    without_prefect = {
        "snapshot record --json": ["snapshot", "record", str(work / "snap_json"), *region,
                                   "--warehouse", str(recorded), "--json"],
        "snapshot record": ["snapshot", "record", str(work / "snap_text"), *region,
                            "--warehouse", str(recorded)],
        "alerts check --json": ["alerts", "check", "--config", str(config), "--warehouse",
                                str(alerts_warehouse), "--json"],
        "alerts check": ["alerts", "check", "--config", str(config), "--warehouse",
                         str(alerts_warehouse)],
    }  # fmt: skip
    through_prefect = {
        "refresh --json": ["refresh", "--warehouse", str(warehouse), *region, "--config",
                           str(config), "--json"],
        "refresh": ["refresh", "--warehouse", str(warehouse), *region, "--config", str(config)],
        "refresh flow": ["--flow", json.dumps({"warehouse": str(warehouse), "regions": ["us-east-1"],
                                               "config": str(config)})],
    }  # fmt: skip
    results = {}

    def run(commands: dict[str, list[str]]) -> None:
        """One process (started as the `gpu-pricing` script starts) runs the lane's
        commands in turn, each command's stdout and stderr kept apart; what the process
        itself prints outside the commands is checked as well."""
        out = tmp_path_factory.mktemp("outputs")
        lane = subprocess.run(
            [sys.executable, str(launcher), json.dumps(list(commands.items())), str(out)],
            env=env, cwd=work, capture_output=True, timeout=900,
        )  # fmt: skip
        assert (out / "codes.json").exists(), lane.stderr.decode()[-3000:]
        codes = json.loads((out / "codes.json").read_text())
        for index, (name, args) in enumerate(commands.items()):
            results[name] = subprocess.CompletedProcess(
                args, codes[name], (out / f"{index}.out").read_bytes(),
                (out / f"{index}.err").read_bytes(),
            )  # fmt: skip
        results[f"the process of {next(iter(commands))}"] = lane

    with ThreadPoolExecutor(max_workers=1) as lane:
        first = lane.submit(run, without_prefect)
        wait_for_prefect()
        run(through_prefect)
        first.result()
    proc.terminate()  # Prefect's database is complete once its server has stopped
    proc.wait(30)
    return work, home, results, warehouse, alerts_warehouse


def duckdb_dump(path: Path) -> str:
    """Every table of a DuckDB file as CSV text."""
    con = db.connect_readonly(path)
    try:
        tables = db.query(con, "SELECT table_name FROM duckdb_tables()")["table_name"]
        return "\n".join(
            db.query(con, f'SELECT CAST(COLUMNS(*) AS VARCHAR) FROM "{t}"').write_csv()
            for t in tables
        )
    finally:
        con.close()


def test_every_command_ran_and_the_errors_were_reported(leak_run, nebius_server):
    """The commands really ran into the echoing errors (so the searches below are not
    vacuous): each provider's failure is reported, with its excerpt masked."""
    token = SECRETS["NEBIUS_IAM_TOKEN"]
    assert (f"Bearer {token}" in {auth for _, auth in nebius_server.calls}), nebius_server.calls
    assert CRUSOE_SIGNATURES and all(len(sig) >= 40 for sig in CRUSOE_SIGNATURES)
    _, _, results, warehouse, alerts_warehouse = leak_run
    for name, result in results.items():
        assert result.returncode in (0, 1, 3), (name, result.stderr.decode()[-2000:])
    recorded = json.loads(results["snapshot record --json"].stdout)["providers"]
    first = ("azure", "aws", "gcp", "lambdalabs", "runpod", "vastai", "oci")
    for provider in (*first, *NEW_KEYED, "vultr", "cloudrift"):
        text = " ".join(recorded[provider]["failures"] + recorded[provider]["skipped"])
        assert "***" in text, (provider, text)
    for provider in NEW_KEYED:  # a failure (the key was sent and rejected), not a skip
        assert recorded[provider]["failures"], (provider, recorded[provider])
    refreshed = json.loads(results["refresh --json"].stdout)
    failed = {p["provider"]: " ".join(p["failed"]) for p in refreshed["providers"]}
    assert "HTTP 401" in failed["lambdalabs"] and "***" in failed["lambdalabs"]
    for provider in NEW_KEYED:
        assert "***" in failed[provider], (provider, failed[provider])
    loads = duckdb_dump(warehouse)
    assert "API key was invalid" in loads and "Signature invalid" in loads
    checked = json.loads(results["alerts check --json"].stdout)
    assert checked["deliveries"] and not any(d["delivered"] for d in checked["deliveries"])
    assert "ops-webhook" in duckdb_dump(alerts_warehouse)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_no_command_prints_a_credential(leak_run, stream):
    _, _, results, _, _ = leak_run
    found = {
        name: leaks(getattr(result, stream))
        for name, result in results.items()
        if leaks(getattr(result, stream))
    }
    assert found == {}


ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def readable(path: Path) -> bytes:
    """A file's bytes, decompressed when it is a zstd frame (a compressed raw store
    object would hide a value from a byte search)."""
    data = path.read_bytes()
    if data.startswith(ZSTD_MAGIC):
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj().decompress(data)
    return data


def test_no_file_written_holds_a_credential(leak_run):
    """Warehouses, the raw store, snapshot directories, the download cache, Prefect's
    home."""
    work, home, _, _, _ = leak_run
    files = [p for root in (work, home) for p in root.rglob("*") if p.is_file()]
    assert any(p.name == "prefect.db" for p in files)
    assert any(p.suffix == ".duckdb" for p in files)
    found = {str(p): leaks(readable(p)) for p in files if leaks(readable(p))}
    assert found == {}


def test_no_warehouse_table_holds_a_credential(leak_run):
    _, _, _, warehouse, alerts_warehouse = leak_run
    assert leaks(duckdb_dump(warehouse)) == []
    assert leaks(duckdb_dump(alerts_warehouse)) == []


def test_prefect_database_holds_the_runs_but_no_credential(leak_run):
    """Flow and task logs, states and artifacts of the refreshes are in the test's
    Prefect database, their failure texts masked."""
    _, home, _, _, _ = leak_run
    con = sqlite3.connect(home / "prefect.db")
    try:
        dump = "\n".join(con.iterdump())
    finally:
        con.close()
    assert "gpu-pricing-refresh" in dump and "HTTP 401" in dump and "***" in dump
    assert leaks(dump) == []
