"""A bad configuration names the key and what is wrong, and never echoes a value that looks
like a credential (a URL with a user, password or token, an API key): it shows a masked
form instead. The values are not in the environment here, so nothing but the config
error's own masking can hide them."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app

HOOK = "json://whuser:CfgHookPass01@127.0.0.1:8080/hooks/CfgHookToken01?token=CfgQueryTok01"
SAS = "https://prices.example.com/api/retail/prices?sv=2024-05-04&sig=CfgSasSig0123456789"
KEY = "AIzaCfgGoogleKey0123456789abcdefghijklm"
SECRET_PARTS = ("CfgHookPass01", "CfgHookToken01", "CfgQueryTok01", "CfgSasSig0123456789",
                KEY, "whuser")  # fmt: skip

BAD_CONFIGS = {
    "webhook URL under an unknown key": (
        f'[[notify]]\nname = "ops"\nwebhook = "{HOOK}"\n',
        "notify[0].webhook: unknown key",
        "'json://***@127.0.0.1:8080/***'",
    ),
    "webhook URL as url_env": (
        f'[[notify]]\nname = "ops"\nurl_env = "{HOOK}"\n',
        "notify[0].url_env: must be an environment variable name",
        "'json://***@127.0.0.1:8080/***'",
    ),
    "webhook URL as url": (
        f'[[notify]]\nname = "ops"\nurl = "{HOOK}"\n',
        "notify[0].url: an Apprise URL carries its secret",
        "",
    ),
    "webhook URL as a target name": (
        f'[[notify]]\nname = "{HOOK}"\nurl_env = "HOOK"\n',
        "notify[0].name: must be 1-80 letters",
        "'json://***@127.0.0.1:8080/***'",
    ),
    "SAS URL under a provider": (
        f'[providers.azure]\nretail_url = "{SAS}"\n',
        "providers.azure.retail_url: unknown key",
        "'https://prices.example.com/***'",
    ),
    "API key at the top level": (
        f'google_api_key = "{KEY}"\n',
        "google_api_key: unknown key",
        "'<a key, masked: 39 characters>'",
    ),
    "API key as a cron expression": (
        f'[schedule]\ncron = "{KEY}"\n',
        "schedule.cron: not a valid 5-field cron expression",
        "'<a key, masked: 39 characters>'",
    ),
    "URLs inside a list": (
        f'[providers.aws]\nregions = [["{HOOK}"]]\n',
        "providers.aws.regions[0]: must be a non-empty string",
        "['json://***@127.0.0.1:8080/***']",
    ),
}


@pytest.mark.parametrize("command", [["alerts", "check"], ["refresh"], ["report"], ["serve"]])
@pytest.mark.parametrize("case", sorted(BAD_CONFIGS))
def test_a_bad_config_names_the_key_and_masks_the_value(tmp_path, case, command):
    text, problem, masked = BAD_CONFIGS[case]
    config = tmp_path / "gpu-pricing.toml"
    config.write_text(text)
    result = CliRunner().invoke(app, [*command, "--config", str(config)])
    assert result.exit_code == 2, result.output
    assert problem in result.stderr
    assert masked in result.stderr
    out = result.stdout + result.stderr
    assert [part for part in SECRET_PARTS if part in out] == []
