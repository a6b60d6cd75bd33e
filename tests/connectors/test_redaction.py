"""common.redact: what is masked, and where the masking is wired in (exceptions,
fetch failures, log records, command-line output)."""

from __future__ import annotations

import ast
import io
import json
import logging
from pathlib import Path

import pytest

from common import redact as kit_redact
from common.redact import MASK, redact
from connectors.errors import UnexpectedResponse
from connectors.kit.page import FetchFailure

ROOT = Path(__file__).resolve().parents[2]

# AWS's documented example key id, assembled so secret scanners do not flag the tree
AWS_DOC_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Invalid request http://h/sas?sv=2024&sig=SIGvalue0123&se=2030", "SIGvalue0123"),
        ("GET https://h/v1/skus?key=AIza0123456789abcdefghijklmnopqrstuvw", "AIza0123"),
        ("json://whuser:hookpass99@hooks.example.com/T0", "hookpass99"),
        ("https://user:pw0rd123@example.com/x", "pw0rd123"),
        ("Unauthorized: api key Bearer rp_0123456789abcdef", "rp_0123456789abcdef"),
        ("Authorization: Basic d2h1c2VyOnBhc3M=", "d2h1c2VyOnBhc3M="),
        (
            "Signature invalid. Authorization=AWS4-HMAC-SHA256 "
            f"Credential={AWS_DOC_KEY_ID}/20260101/us-east-1/ec2/aws4_request, "
            "SignedHeaders=host;x-amz-date, Signature=fe5f80f77d5fa3beca038a248ff027",
            AWS_DOC_KEY_ID,
        ),
        ("... Signature=fe5f80f77d5fa3beca038a248ff027 ...", "fe5f80f77d5fa3beca038a248ff027"),
        ("https://b.s3.amazonaws.com/k?X-Amz-Security-Token=FwoGZX1&X-Amz-Date=1", "FwoGZX1"),
        ("https://login/cb?code=0AuthC0de99&state=1", "0AuthC0de99"),
        ("https://h/x?token=tok3n_v4lue", "tok3n_v4lue"),
        ('{"api_key": "k3y-v4lue", "items": []}', "k3y-v4lue"),
        (f"the key id {AWS_DOC_KEY_ID} leaked", AWS_DOC_KEY_ID),
        ("X-Api-Key: abcdef0123456789", "abcdef0123456789"),
    ],
)
def test_credential_shaped_text_is_masked(text, secret):
    out = redact(text)
    assert secret not in out and MASK in out


def test_ordinary_text_is_left_alone():
    text = "azure/retail_prices: HTTP 503 from https://prices.azure.com/api/retail/prices"
    assert redact(text) == text
    doc = "H100 80 GiB on_demand 12.29 USD/GPU-hour, Standard_ND96isr_H100_v5 in eastus"
    assert redact(doc) == doc


def test_values_of_credential_variables_are_masked_wherever_they_appear(monkeypatch):
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda_plain_value_42")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    monkeypatch.setenv("SOME_SERVICE_TOKEN", "an-unlisted-token-value")  # named like a secret
    text = redact(
        "echo: lambda_plain_value_42; wJalrXUtnFEMI%2FK7MDENG%2FbPxRfiCYEXAMPLEKEY; "
        "wJalrXUtnFEMI\\/K7MDENG\\/bPxRfiCYEXAMPLEKEY; an-unlisted-token-value"
    )
    assert text == "echo: ***; ***; ***; ***"


def test_the_masked_values_follow_the_environment_and_registrations_between_pages(monkeypatch):
    """`credential_values` follows the process: a variable set, changed or removed, a value
    or a variable name registered, and a page stored after the change is masked by it."""
    monkeypatch.delenv("LAMBDA_API_KEY", raising=False)
    before = kit_redact.credential_values()
    assert "lambda_cached_value_1" not in before
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda_cached_value_1")
    assert "lambda_cached_value_1" in kit_redact.credential_values()
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda_cached_value_2")
    assert "lambda_cached_value_1" not in kit_redact.credential_values()
    assert kit_redact.mask_credentials("echo lambda_cached_value_2") == "echo ***"
    monkeypatch.delenv("LAMBDA_API_KEY")
    assert "lambda_cached_value_2" not in kit_redact.credential_values()
    monkeypatch.setenv("PLAIN_SETTING_4", "plain-setting-value-4")  # not named as a secret
    assert "plain-setting-value-4" not in kit_redact.credential_values()
    kit_redact.register_env("PLAIN_SETTING_4")
    assert "plain-setting-value-4" in kit_redact.credential_values()
    kit_redact.register("registered-value-4")
    assert "registered-value-4" in kit_redact.credential_values()


def test_a_notify_url_variable_is_masked_with_its_parts(monkeypatch):
    monkeypatch.setenv("OPS_HOOK", "json://u:Pa55word-x@hooks.example.com/path/T0KEN-abcdef")
    kit_redact.register_env("OPS_HOOK")
    out = redact("401 for T0KEN-abcdef with Pa55word-x")
    assert out == "401 for *** with ***"


def test_every_connector_api_key_variable_is_a_known_credential():
    """A connector that reads a key from the environment declares it in settings.py as
    *_KEY_ENV / *_SECRET_ENV / *_TOKEN_ENV; each is one of its connector's declared
    `credentials`, which redaction knows once the registry is loaded."""
    names = []
    for path in sorted((ROOT / "connectors").glob("*/settings.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant):
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id.endswith(
                    ("KEY_ENV", "SECRET_ENV", "TOKEN_ENV")
                ):
                    names.append(node.value.value)
            # several names read in turn: KEY_ENV = ("NEW_NAME", "OLD_NAME")
            if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
                target = node.targets[0]
                if isinstance(target, ast.Name) and target.id.endswith(
                    ("KEY_ENV", "SECRET_ENV", "TOKEN_ENV")
                ):
                    names += [e.value for e in node.value.elts if isinstance(e, ast.Constant)]
    assert names, "no credential variables found in connectors/*/settings.py"
    from connectors.registry import PROVIDERS

    declared = {n for c in PROVIDERS.values() for n in c.credentials}
    assert set(names) <= declared, set(names) - declared
    assert declared <= kit_redact.env_names()


def test_an_error_excerpt_is_cut_after_redaction(monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "rpk_" + "z" * 40)
    # the key straddles the 300-character cut: cut first, its head would survive
    body = "x" * 280 + "rpk_" + "z" * 40
    exc = UnexpectedResponse("runpod", "gpu_types", "HTTP 401", excerpt=body)
    assert "rpk_" not in str(exc) and "rpk_" not in exc.excerpt
    assert exc.excerpt.endswith(MASK)


def test_a_fetch_failure_holds_redacted_text_whatever_the_error(monkeypatch):
    monkeypatch.setenv("GOOGLE_API_KEY", "AIzaFailureKey0123456789abcdefghijklmno")
    failure = FetchFailure(
        "gcp", "skus", "", ValueError("bad URL https://h/?key=AIzaFailureKey0123456789abcdefghijklmno")
    )
    assert "AIzaFailureKey" not in str(failure.error)
    assert str(failure.error).startswith("ValueError: bad URL")


@pytest.fixture
def logging_restored(monkeypatch):
    """install_logging() changes the process's logging: undone after the test."""
    factory = logging.getLogRecordFactory()
    monkeypatch.setattr(kit_redact, "_factory_installed", False)
    yield
    logging.setLogRecordFactory(factory)
    for lg in [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]:
        if isinstance(lg, logging.Logger):
            lg.removeFilter(kit_redact._FILTER)
            for handler in lg.handlers:
                handler.removeFilter(kit_redact._FILTER)


def test_log_records_are_redacted_by_every_handler(monkeypatch, logging_restored):
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda_log_value_77")
    kit_redact.install_logging()
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)  # added after install: the factory covers it
    logger = logging.getLogger("tests.redaction")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    try:
        logger.warning("calling with %s", "Bearer lambda_log_value_77")
        try:
            raise RuntimeError("lambda_log_value_77 rejected")
        except RuntimeError:
            logger.exception("failed for %s", "https://h/?sig=abcdef123")
    finally:
        logger.removeHandler(handler)
    text = stream.getvalue()
    assert "lambda_log_value_77" not in text and "abcdef123" not in text
    assert "RuntimeError: *** rejected" in text


def test_cli_output_helpers_redact(monkeypatch, capsys):
    from gpu_pricing.cli._output import emit_json, err

    monkeypatch.setenv("RUNPOD_API_KEY", "runpod_output_value_5")
    emit_json({"failures": ["HTTP 401: Unauthorized: api key runpod_output_value_5"]})
    err("delivery failed: json://u:p4ssw0rd@127.0.0.1/hook")
    out, errors = capsys.readouterr()
    assert json.loads(out) == {"failures": ["HTTP 401: Unauthorized: api key ***"]}
    assert "p4ssw0rd" not in errors and "json://***@127.0.0.1/hook" in errors


def test_the_redacting_stream_masks_what_is_written(monkeypatch):
    monkeypatch.setenv("LAMBDA_API_KEY", "lambda_stream_value_3")
    raw = io.StringIO()
    stream = kit_redact.RedactingStream(raw)
    print("key lambda_stream_value_3 in a summary", file=stream)
    assert raw.getvalue() == "key *** in a summary\n"


def test_aws_keys_from_a_profile_are_masked_once_boto3_resolves_them(tmp_path, monkeypatch):
    import boto3

    from connectors.aws.fetch import BotoClients

    for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE"):
        monkeypatch.delenv(var, raising=False)
    credentials = tmp_path / "credentials"
    credentials.write_text(
        "[ci]\naws_access_key_id = ProfileKeyId0001\n"
        "aws_secret_access_key = profile/secret+value0001\n"
    )
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(credentials))
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "config"))
    assert "profile/secret+value0001" in redact("echo profile/secret+value0001")
    assert BotoClients(boto3.Session(profile_name="ci")).has_credentials()
    assert redact("echo profile/secret+value0001 ProfileKeyId0001") == "echo *** ***"


def test_masking_inside_json_text_keeps_the_json_valid(monkeypatch):
    """The --json output is redacted as text: a masked value ends before the backslash of
    an escaped quote, so the document still parses (and holds no secret)."""
    inner = json.dumps({"message": "bad key (Authorization: Bearer dop_v1_0123456789abcdef)",
                        "api_key": "k3y-v4lue0123", "url": "http://h/x?token=tok3nvalue&a=1",
                        "aws": f"Credential={AWS_DOC_KEY_ID}/20260101"})  # fmt: skip
    text = json.dumps({"failures": [f"HTTP 401; excerpt: {inner}"]})
    out = redact(text)
    parsed = json.loads(out)
    for secret in ("dop_v1_0123456789abcdef", "k3y-v4lue0123", "tok3nvalue", "AKIAIOSFODNN7"):
        assert secret not in out
    assert json.loads(parsed["failures"][0].split("excerpt: ", 1)[1])["api_key"] == MASK


def test_a_verda_access_token_is_masked_once_it_is_issued():
    """The bearer token Verda's token endpoint hands out is in no environment variable:
    the connector registers it, so an API error that echoes it is masked."""
    import httpx

    from connectors.kit.auth import BearerAuth
    from connectors.verda import fetch as verda

    token = "verda_issued_token_0123456789"

    def answer(request: httpx.Request) -> httpx.Response:
        if request.url.path.endswith("/oauth2/token"):
            return httpx.Response(200, json={"access_token": token, "expires_in": 3600})
        return httpx.Response(401, text=f"invalid token {token}")

    assert token in redact(f"echo {token}")
    with httpx.Client(transport=httpx.MockTransport(answer)) as client:
        issued = verda.TOKEN.token(client, "verda", ("id", "secret"), base="http://verda.test/v1")
        with pytest.raises(UnexpectedResponse) as caught:
            list(verda.INSTANCE_TYPES.pages(client, auth=BearerAuth(issued), base="http://verda.test/v1"))
    assert issued == token
    assert token not in str(caught.value) and "invalid token ***" in str(caught.value)


def test_a_crusoe_request_signature_is_masked_when_an_error_echoes_it():
    import httpx

    from connectors.crusoe import fetch as crusoe

    seen = []

    def answer(request: httpx.Request) -> httpx.Response:
        sig = request.headers["Authorization"].rsplit(":", 1)[-1]
        seen.append(sig)
        return httpx.Response(401, text=f"signature {sig} does not match")

    auth = crusoe.CrusoeAuth("crusoe_access_unit_01", "c2VjcmV0LWtleS1mb3ItdW5pdC10ZXN0")
    client = httpx.Client(transport=httpx.MockTransport(answer))
    with client, pytest.raises(UnexpectedResponse) as caught:
        list(crusoe.VM_TYPES.pages(client, ("p-1",), auth=auth, base="http://crusoe.test"))
    assert seen and seen[0] not in str(caught.value)
    assert "signature *** does not match" in str(caught.value)
