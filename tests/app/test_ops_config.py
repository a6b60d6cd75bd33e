"""gpu-pricing.toml: defaults, precedence, validation, and bad files failing fast (exit 2,
one line naming the key, the warehouse untouched)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from connectors import registry
from gpu_pricing.cli import app
from services import config
from warehouse import db

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "gpu-pricing.example.toml"
RULE = """
[[rules]]
name = "r"
kind = "price_above"
gpu = "H100"
usd_per_gpu_hour = 10
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(text)
    return path


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(config.ConfigError) as info:
        config.load(write(tmp_path, text))
    return str(info.value)


def test_without_a_file_the_defaults_are_every_connector_nightly_at_two_utc(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv(config.ENV_VAR, raising=False)
    cfg = config.load()
    assert cfg.source is None and cfg.schedule == config.Schedule(cron="0 2 * * *", timezone="UTC")
    assert cfg.connector_names() == list(registry.PROVIDERS)
    assert (cfg.stale_after_hours, cfg.row_drop_pct) == (36.0, 50.0)
    assert cfg.notify == cfg.budgets == cfg.rules == ()


def test_the_example_file_loads_with_every_section(monkeypatch):
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    cfg = config.load(EXAMPLE)
    assert cfg.warehouse == REPO / "warehouse" / "gpu_pricing.duckdb"  # relative to the file
    assert cfg.warehouse_path() == cfg.warehouse
    # copied as it is, it refreshes every provider: narrowing is opt-in (commented out)
    assert cfg.connector_names() == list(registry.PROVIDERS)
    assert cfg.regions_for("azure") is None
    assert [t.name for t in cfg.notify] == ["team-slack", "ops-webhook"]
    fine_tune, pretrain = cfg.budgets
    assert (fine_tune.gpus, fine_tune.hours_per_day, fine_tune.period) == (8, 6.0, "month")
    assert pretrain.is_training and pretrain.params == 70e9 and pretrain.period == "total"
    assert [r.kind for r in cfg.rules] == [
        "price_above",
        "price_below",
        "day_over_day",
        "spot_ratio",
    ]
    assert cfg.rules[0].level == 12.0 and cfg.rules[3].pricing_model is None


def test_the_flag_beats_the_environment_which_beats_the_working_directory(tmp_path, monkeypatch):
    for name in ("cwd", "env", "flag"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "gpu-pricing.toml").write_text(f'warehouse = "/{name}.duckdb"\n')
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    monkeypatch.chdir(tmp_path / "cwd")
    assert config.load().warehouse == Path("/cwd.duckdb")
    monkeypatch.setenv(config.ENV_VAR, str(tmp_path / "env" / "gpu-pricing.toml"))
    assert config.load().warehouse == Path("/env.duckdb")
    assert config.load(tmp_path / "flag" / "gpu-pricing.toml").warehouse == Path("/flag.duckdb")


def test_the_warehouse_flag_and_variable_beat_the_file(tmp_path, monkeypatch):
    cfg = config.load(write(tmp_path, 'warehouse = "from-file.duckdb"'))
    monkeypatch.delenv(db.ENV_VAR, raising=False)
    assert cfg.warehouse_path() == tmp_path / "from-file.duckdb"
    monkeypatch.setenv(db.ENV_VAR, "/from-env.duckdb")
    assert cfg.warehouse_path() == Path("/from-env.duckdb")
    assert cfg.warehouse_path("/from-flag.duckdb") == Path("/from-flag.duckdb")


def test_a_missing_file_that_was_asked_for_is_an_error(tmp_path):
    with pytest.raises(config.ConfigError, match="no such file"):
        config.load(tmp_path / "nope.toml")


@pytest.mark.parametrize(
    ("text", "key", "shown"),
    [
        (RULE.replace('"H100"', '"H1000"'), "rules[0].gpu", "'H1000'"),
        (RULE.replace("gpu = ", "memory_gib = 81\ngpu = "), "rules[0].memory_gib", "81"),
        (RULE.replace("price_above", "price_sideways"), "rules[0].kind", "'price_sideways'"),
        (RULE.replace("usd_per_gpu_hour", "usd_per_hour"), "rules[0].usd_per_hour", "10"),
        (RULE + 'providers = ["azure", "nimbus"]\n', "rules[0].providers[1]", "'nimbus'"),
        ('[schedule]\ncron = "0 25 * * *"\n', "schedule.cron", "'0 25 * * *'"),
        ('[schedule]\ncron = "0 2 * *"\n', "schedule.cron", "'0 2 * *'"),
        ('[schedule]\ntimezone = "Mars/Olympus"\n', "schedule.timezone", "'Mars/Olympus'"),
        ("[providers.nimbus]\n", "providers.nimbus", "'nimbus'"),
        ('[providers.azure]\nregion = ["eastus"]\n', "providers.azure.region", "['eastus']"),
        ("[alerts]\nrow_drop_pct = 150\n", "alerts.row_drop_pct", "150"),
        ("budjet = 1\n", "budjet", "1"),
        (
            '[[budgets]]\nname = "b"\ngpu = "A100"\nhours_per_day = 6\nbudget_usd = -5\n',
            "budgets[0].budget_usd",
            "-5",
        ),
        (
            '[[budgets]]\nname = "b"\ngpu = "A100"\nhours_per_day = 25\nbudget_usd = 5\n',
            "budgets[0].hours_per_day",
            "25",
        ),
        (
            '[[budgets]]\nname = "b"\ngpu = "T4"\nparams = 1e9\ntokens = 1e9\nmfu = 0.4\n'
            "budget_usd = 5\n",
            "budgets[0].gpu",
            "'T4'",
        ),
        (
            '[[budgets]]\nname = "b"\ngpu = "A100"\nhours_per_day = 6\nbudget_usd = 5\n'
            'period = "total"\n',
            "budgets[0].period",
            "",
        ),
        ('[[notify]]\nname = "n"\nurl_env = "not a name"\n', "notify[0].url_env", "'not a name'"),
        ('[[notify]]\nname = "n"\n', "notify[0]", ""),
        ("[plan]\nmax_instances = 2.5\n", "plan.max_instances", "2.5"),
        ("[plan.capacity]\nverda = 0\n", "plan.capacity.verda", "0"),
        ("[checks]\nfloor_fraction = 1.5\n", "checks.floor_fraction", "1.5"),
        ("[checks]\njump_factor = 0.5\n", "checks.jump_factor", "0.5"),
        ("[checks]\nmax_drop_pct = 120\n", "checks.max_drop_pct", "120"),
        ("[checks]\nfloor = 0.1\n", "checks.floor", "0.1"),
    ],
)
def test_each_problem_is_one_line_naming_the_file_the_key_and_the_value(tmp_path, text, key, shown):
    message = error(tmp_path, text)
    assert "\n" not in message
    assert message.startswith(f"config {tmp_path / 'gpu-pricing.toml'}: {key}: ")
    assert shown in message


def test_a_url_in_the_file_is_refused_without_echoing_it(tmp_path):
    message = error(tmp_path, '[[notify]]\nname = "n"\nurl = "slack://T1/B2/sEcReTtOkEn"\n')
    assert "notify[0].url" in message and "url_env" in message
    assert "sEcReTtOkEn" not in message


def test_invalid_toml_is_one_line_too(tmp_path):
    message = error(tmp_path, "warehouse = \n")
    assert "not valid TOML" in message and "\n" not in message


BAD = {
    "unknown GPU": (RULE.replace('"H100"', '"H1000"'), "rules[0].gpu"),
    "negative budget": (
        '[[budgets]]\nname = "b"\ngpu = "A100"\nhours_per_day = 6\nbudget_usd = -5\n',
        "budgets[0].budget_usd",
    ),
    "malformed cron": ('[schedule]\ncron = "every night"\n', "schedule.cron"),
    "unknown connector": ("[providers.nimbus]\n", "providers.nimbus"),
}


@pytest.fixture
def warehouse_copy(tmp_path, demo_warehouse) -> Path:
    path = tmp_path / "w.duckdb"
    shutil.copyfile(demo_warehouse, path)
    return path


@pytest.mark.parametrize(
    "command", [["alerts", "check"], ["refresh", "--snapshot", "demo"], ["serve"], ["report"]]
)
@pytest.mark.parametrize("case", sorted(BAD))
def test_a_bad_config_fails_fast_with_one_line_and_changes_nothing(
    tmp_path, warehouse_copy, command, case
):
    text, key = BAD[case]
    cfg = write(tmp_path, text)
    before = (warehouse_copy.read_bytes(), warehouse_copy.stat().st_mtime_ns)
    result = CliRunner().invoke(
        app, [*command, "--config", str(cfg), "--warehouse", str(warehouse_copy)]
    )
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f": {key}: " in lines[0], result.stderr
    assert result.stdout == ""
    assert (warehouse_copy.read_bytes(), warehouse_copy.stat().st_mtime_ns) == before
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("w.duckdb")) == [
        "w.duckdb"
    ]


def test_the_examples_commented_narrowing_narrows_when_uncommented(tmp_path):
    text = EXAMPLE.read_text()
    block = [ln for ln in text.splitlines() if ln.startswith("#   [providers.") or ln.startswith("#   regions")]
    assert block  # the example shows how to narrow
    uncommented = text + "\n" + "\n".join(ln[4:].split("#")[0] for ln in block) + "\n"
    path = tmp_path / "gpu-pricing.toml"
    path.write_text(uncommented)
    cfg = config.load(path)
    assert cfg.connector_names() == ["azure", "aws"]
    assert cfg.regions_for("azure") == ("eastus", "southcentralus", "westus2", "westeurope")


def test_plan_capacity_limits_are_read_per_offer_provider_and_for_every_offer(tmp_path):
    loaded = config.load(
        write(
            tmp_path,
            '[plan]\nmax_instances = 16\n[plan.capacity]\nverda = 32\n"aws/p5.48xlarge" = 8\n',
        )
    )
    assert loaded.plan.limits == {"*": 16, "verda": 32, "aws/p5.48xlarge": 8}


@pytest.mark.parametrize(
    ("table", "model"),
    [
        ("schedule", config.Schedule),
        ("alerts", config.Alerts),
        ("publish", config.Publish),
        ("plan", config.PlanWorkload),
    ],
)
def test_a_tables_known_keys_are_its_models_fields(tmp_path, table, model):
    """The models are the file's shape: a key added to one is known to the file with no
    second list to update."""
    message = error(tmp_path, f"[{table}]\nbogus = 1\n")
    assert f"{table}.bogus: unknown key (known: {', '.join(sorted(model.model_fields))})" in message


def test_checks_set_the_plausibility_figures_a_refresh_uses(tmp_path):
    from warehouse.plausibility import Checks

    assert config.load(write(tmp_path, "")).checks.rules() == Checks()
    cfg = config.load(write(tmp_path, "[checks]\nfloor_fraction = 0\njump_factor = 4\n"))
    assert cfg.checks.rules() == Checks(floor_fraction=0.0, jump_factor=4.0)
