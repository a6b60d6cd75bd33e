"""`gpu-pricing.toml`: where the warehouse lives, what to refresh and when, who to tell,
and the budgets and rate rules to watch (example: gpu-pricing.example.toml).

Found by `--config PATH`, else `$GPU_PRICING_CONFIG`, else `./gpu-pricing.toml` if it
exists, else built-in defaults (every provider, nightly at 02:00 UTC, health rules only).

The file's shape is the pydantic models below, one per table, each field a key of the file.
Validated in full on load: any problem is one `InvalidInput` line naming the file, the key
and the value (exit 2), raised before anything touches the warehouse. Unknown keys are
errors too, so a typo never silently disables a budget.

Secrets (webhook tokens, SMTP passwords, API keys) never live in the file: a notification
target names an environment variable (`url_env`) or a Prefect Secret block
(`secret_block`) that holds its Apprise URL, resolved only at delivery time. A `url` key is
rejected, and its value is never echoed; no error echoes a value that looks like a
credential (a URL shows only its scheme and host, a key only its length).

Adding a key: add a field to its table's model with a default, and an annotated type (or a
validator raising `check.problem`) for its check; the key then appears in the "unknown key"
hint, and its error names it with no more code.
"""

from __future__ import annotations

import os
import re
import tomllib
from datetime import date, datetime
from pathlib import Path
from typing import Annotated, Any, ClassVar
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import (
    AfterValidator,
    BeforeValidator,
    Field,
    ValidationError,
    ValidationInfo,
    field_validator,
    model_validator,
)

from common import names
from common.redact import register_env
from services import budget_plans
from services import config_checks as check
from services.config_checks import (
    ConfigError,
    Name,
    NonNegative,
    Positive,
    PricingModel,
    Providers,
    Text,
    gpu_specs,
)
from warehouse import db, plausibility

ENV_VAR = "GPU_PRICING_CONFIG"
DEFAULT_NAME = "gpu-pricing.toml"

DEFAULT_CRON = "0 2 * * *"
DEFAULT_TIMEZONE = "UTC"
DEFAULT_THRESHOLDS_PCT = (50.0, 80.0, 100.0)
# A provider whose newest successful load is older than this is stale (the nightly run
# plus a missed night and some slack).
DEFAULT_STALE_AFTER_HOURS = 36.0
# A provider known only from curated price sheets is dated by the newest as_of its rows
# state; sheets are transcribed by hand, so they get a month before they count as stale.
DEFAULT_SHEET_STALE_AFTER_DAYS = 30.0
# A refresh that loses more than this share of a provider's offers raises an alarm.
DEFAULT_ROW_DROP_PCT = 50.0

# Rule kind -> the key that holds its level, and that level's unit (for messages).
RULE_LEVEL_KEYS = {
    "price_above": "usd_per_gpu_hour",
    "price_below": "usd_per_gpu_hour",
    "day_over_day": "max_move_pct",
    "spot_ratio": "max_pct_of_on_demand",
}


WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")


class Schedule(check.Table):
    cron: Text = DEFAULT_CRON
    timezone: Text = DEFAULT_TIMEZONE
    # the weekly full check: the refresh that runs on this day (in `timezone`) checks every
    # row of the warehouse; the others check the rows they added (warehouse.checks).
    # "daily": every refresh; "never": only `gpu-pricing check --all`
    full_check: Text = "sun"

    @field_validator("full_check")
    @classmethod
    def _full_check(cls, day: str) -> str:
        if day.lower() not in (*WEEKDAYS, "daily", "never"):
            raise check.problem(
                f"a day ({', '.join(WEEKDAYS)}), daily or never", value=day
            )
        return day.lower()

    def full_check_due(self, moment: datetime) -> bool:
        """Whether a refresh at `moment` (aware) runs the weekly full check."""
        if self.full_check in ("daily", "never"):
            return self.full_check == "daily"
        local = moment.astimezone(ZoneInfo(self.timezone))
        return WEEKDAYS[local.weekday()] == self.full_check

    @field_validator("cron")
    @classmethod
    def _cron(cls, cron: str) -> str:
        from croniter import croniter

        # five fields: Prefect's cron schedules take no seconds field
        if len(cron.split()) != 5 or not croniter.is_valid(cron):
            raise check.problem("not a valid 5-field cron expression", value=cron)
        return cron

    @field_validator("timezone")
    @classmethod
    def _timezone(cls, tz: str) -> str:
        try:
            ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError):
            raise check.problem("unknown IANA time zone", value=tz) from None
        return tz


class Alerts(check.Table):
    """[alerts]: the health rules every refresh is checked against; 0 disables one."""

    stale_after_hours: NonNegative = DEFAULT_STALE_AFTER_HOURS
    sheet_stale_after_days: NonNegative = DEFAULT_SHEET_STALE_AFTER_DAYS
    row_drop_pct: NonNegative = DEFAULT_ROW_DROP_PCT

    @field_validator("row_drop_pct")
    @classmethod
    def _at_most_all(cls, pct: float) -> float:
        if pct > 100:
            raise check.problem("must be <= 100", value=pct)
        return pct


_CHECKS = plausibility.Checks()


class Checks(check.Table):
    """[checks]: the plausibility rules a refresh holds prices back by (warehouse.plausibility
    states them; 0 disables one): a per-GPU-hour price below `floor_fraction` x the median
    verified price of its GPU (where at least `floor_min_offers` are priced), a price more
    than `jump_factor` times away from the offer's last one, and a provider whose offers
    fall by more than `max_drop_pct` percent from its last good load (its previous offers
    are kept; `refresh --accept-drop NAME` accepts it)."""

    floor_fraction: NonNegative = _CHECKS.floor_fraction
    floor_min_offers: Annotated[int, check.number(1, whole=True)] = _CHECKS.floor_min_offers
    jump_factor: NonNegative = _CHECKS.jump_factor
    max_drop_pct: NonNegative = _CHECKS.max_drop_pct

    @field_validator("floor_fraction")
    @classmethod
    def _below_one(cls, fraction: float) -> float:
        if fraction >= 1:
            raise check.problem("must be < 1 (a share of the median price)", value=fraction)
        return fraction

    @field_validator("jump_factor")
    @classmethod
    def _a_jump(cls, factor: float) -> float:
        if 0 < factor <= 1:
            raise check.problem("must be > 1 (or 0 to disable)", value=factor)
        return factor

    @field_validator("max_drop_pct")
    @classmethod
    def _at_most_all(cls, pct: float) -> float:
        if pct > 100:
            raise check.problem("must be <= 100", value=pct)
        return pct

    def rules(self) -> plausibility.Checks:
        return plausibility.Checks(**self.model_dump())


class Target(check.Table):
    """A notification target: its Apprise URL comes from an environment variable or a
    Prefect Secret block, never from the file."""

    name: Name
    url_env: Annotated[str, BeforeValidator(check.env_name)] | None = None
    secret_block: Text | None = None

    @classmethod
    def _keys(cls, entry: dict) -> set[str]:
        if "url" in entry:
            # never echo it: an Apprise URL usually carries the token
            raise check.problem(
                "an Apprise URL carries its secret; put it in an environment variable "
                "and name that with url_env (or use secret_block)",
                "url",
            )
        return super()._keys(entry)

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        if ("url_env" in entry) == ("secret_block" in entry):
            raise check.problem("needs exactly one of url_env or secret_block", value=entry)
        return entry

    @model_validator(mode="after")
    def _masked(self) -> Target:
        if self.url_env is not None:
            register_env(self.url_env)  # its value is masked in every output
        return self

    @property
    def source(self) -> str:
        return f"${self.url_env}" if self.url_env else f"Secret block {self.secret_block!r}"


class _GpuEntry(check.Table):
    """A budget or a rule: a GPU (any case, memory may ride along: "h100", "A100-80GB",
    common.names) and optionally its memory, one of the sizes seed_gpu_specs lists."""

    name: Name
    gpu: str
    memory_gib: float | None = None
    providers: Providers = None

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        choice = check.named(names.gpu, check.string(entry.get("gpu"), "gpu"), "gpu")
        memory = entry.get("memory_gib", choice.memory_gib)
        if memory is not None:
            memory = check.as_number(memory, "memory_gib", strict=True)
            sizes = sorted(m for g, m in check.specs(info) if g == choice.name)
            if memory not in sizes:
                raise check.problem(
                    f"{choice.name} comes with {', '.join(f'{m:g}' for m in sizes)} GiB "
                    "in seed_gpu_specs",
                    "memory_gib",
                    value=entry["memory_gib"],
                )
        return {**entry, "gpu": choice.name, "memory_gib": memory}


_TRAINING_KEYS = ("params", "tokens", "mfu")
_USAGE_KEYS = ("hours_per_day", "start", "end", "usage_file")
# what a plan budget takes from its plan file (services.budget_plans)
_PLAN_TAKES = ("gpu", "memory_gib", "gpus", "pricing_model", "providers")


class Budget(_GpuEntry):
    """A workload and its budget. Usage form: `gpus` GPUs for `hours_per_day` hours a day.
    Training form: one run of `params` x `tokens` at `mfu` (6ND, models.training). Plan
    form: `plan_file`, a saved `plan train --json` / `plan serve --json` output, whose cost
    for the period is the forecast (services.budget_plans)."""

    _internal: ClassVar[frozenset[str]] = frozenset({"plan"})

    gpus: Annotated[int, check.number(1, whole=True)] = 1
    pricing_model: PricingModel = "on_demand"
    budget_usd: Positive
    period: str  # "month" (calendar month, resets on the 1st) | "total"
    thresholds_pct: tuple[float, ...] = DEFAULT_THRESHOLDS_PCT
    hours_per_day: Positive | None = None
    start: Annotated[date | None, BeforeValidator(check.toml_date)] = None
    end: Annotated[date | None, BeforeValidator(check.toml_date)] = None
    params: Positive | None = None
    tokens: Positive | None = None
    mfu: Positive | None = None
    # what was used: a CSV of `date` and `gpu_hours` (or `hours` of the budget's GPUs) per
    # day, priced at the rates in force each day, or a cost export of `date` and
    # `cost_usd`: the budget's actual spend (models.alert_rules.actual_from_usage)
    usage_file: Path | None = None
    # a saved plan (services.budget_plans.read_plan): the file, and what was read from it
    plan_file: Path | None = None
    plan: dict[str, Any] | None = None

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        if "plan_file" in entry:
            taken = (*_TRAINING_KEYS, *_USAGE_KEYS, *_PLAN_TAKES)
            entry = budget_plans.budget_entry(entry, sorted(k for k in taken if k in entry))
        entry = super()._read(entry, info)
        if entry.get("plan") is not None:
            return entry
        training = any(k in entry for k in _TRAINING_KEYS)
        entry.setdefault("period", "total" if training else "month")
        if entry["period"] not in ("month", "total"):
            raise check.problem("must be 'month' or 'total'", "period", value=entry["period"])
        if training:
            for k in sorted(k for k in _USAGE_KEYS if k in entry):
                raise check.problem("is for usage budgets, not a training run", k, value=entry[k])
            for k in _TRAINING_KEYS:
                if k not in entry:
                    raise check.problem("a training budget needs params, tokens and mfu", k)
            if entry["period"] != "total":
                raise check.problem(
                    "a training run has a 'total' budget", "period", value=entry["period"]
                )
        elif "hours_per_day" not in entry:
            raise check.problem(
                "a usage budget needs hours_per_day (or params/tokens/mfu)", "hours_per_day"
            )
        return entry

    @field_validator("thresholds_pct", mode="before")
    @classmethod
    def _thresholds(cls, value: Any) -> tuple[float, ...]:
        if isinstance(value, tuple):
            value = list(value)
        if not isinstance(value, list) or not value:
            raise check.problem("must be a non-empty list", value=value)
        return tuple(sorted({check.as_number(pct, i, strict=True) for i, pct in enumerate(value)}))

    @model_validator(mode="after")
    def _workload(self, info: ValidationInfo) -> Budget:
        if self.plan is not None:
            return self
        if self.is_training:
            if self.mfu > 1:
                raise check.problem("must be in (0, 1]", "mfu", value=self.mfu)
            specs = check.specs(info)
            sizes = [m for g, m in specs if g == self.gpu]
            if not any(specs[(self.gpu, m)] for m in sizes if self.memory_gib in (None, m)):
                raise check.problem(
                    "has no BF16 peak in seed_gpu_specs, so no training estimate",
                    "gpu",
                    value=self.gpu,
                )
            return self
        if self.hours_per_day > 24:
            raise check.problem("must be <= 24", "hours_per_day", value=self.hours_per_day)
        start, end = self.start, self.end
        if self.period == "total" and (start is None or end is None):
            raise check.problem("a 'total' usage budget needs start and end dates", "period")
        if self.period == "month" and (start is not None or end is not None):
            raise check.problem("start/end apply to period = 'total' only", "period", value="month")
        if start is not None and end is not None and end <= start:
            raise check.problem(f"must be after start ({start})", "end", value=end)
        return self

    @property
    def is_training(self) -> bool:
        return self.params is not None


class RateRule(_GpuEntry):
    """price_above / price_below: the cheapest rate vs a USD/GPU-hour level;
    day_over_day: the cheapest rate's move in 24 h vs a percentage;
    spot_ratio: cheapest spot as a percentage of cheapest on-demand vs a percentage.
    The level lives under the key its kind names (RULE_LEVEL_KEYS)."""

    kind: str
    pricing_model: PricingModel | None = None  # None: spot_ratio (spot vs on_demand)
    usd_per_gpu_hour: Positive | None = None
    max_move_pct: Positive | None = None
    max_pct_of_on_demand: Positive | None = None

    @classmethod
    def _keys(cls, entry: dict) -> set[str]:
        kind = entry.get("kind")
        if kind not in RULE_LEVEL_KEYS:
            raise check.problem(f"must be one of {', '.join(RULE_LEVEL_KEYS)}", "kind", value=kind)
        return super()._keys(entry) - set(RULE_LEVEL_KEYS.values()) | {RULE_LEVEL_KEYS[kind]}

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        entry = super()._read(entry, info)
        kind, level_key = entry["kind"], RULE_LEVEL_KEYS[entry["kind"]]
        if level_key not in entry:
            raise check.problem(f"a {kind} rule needs {level_key}", level_key)
        if kind == "spot_ratio":
            if "pricing_model" in entry:
                raise check.problem(
                    "spot_ratio compares spot with on_demand",
                    "pricing_model",
                    value=entry["pricing_model"],
                )
        else:
            entry.setdefault("pricing_model", "on_demand")
        return entry

    @property
    def level(self) -> float:
        return getattr(self, RULE_LEVEL_KEYS[self.kind])


class Publish(check.Table):
    """[publish]: where `gpu-pricing publish` (and, when `to` is set, the nightly flow's
    last step) writes the Iceberg tables. `catalog` and `properties` are pyiceberg catalog
    and FileIO properties; a key ending in `_env` names the environment variable that holds
    its value (a Postgres URI with its password, a REST token), read at publish time."""

    to: Text | None = None
    namespace: Text = "gpu_pricing"
    duckdb: bool = True
    catalog: Annotated[dict[str, str], BeforeValidator(check.properties)] = Field(
        default_factory=dict
    )
    properties: Annotated[dict[str, str], BeforeValidator(check.properties)] = Field(
        default_factory=dict
    )

    @field_validator("to")
    @classmethod
    def _destination(cls, to: str | None, info: ValidationInfo) -> str | None:
        if to is None:
            return None
        scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]+)://", to)
        if scheme and scheme.group(1) not in check.PUBLISH_SCHEMES:
            raise check.problem("must be a local path or an s3://, gs:// or az:// URL", value=to)
        return to if scheme else check.relative_to_file(to, info)

    @field_validator("namespace")
    @classmethod
    def _namespace(cls, namespace: str) -> str:
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", namespace):
            raise check.problem("letters, digits and '_' only", value=namespace)
        return namespace

    @field_validator("duckdb", mode="before")
    @classmethod
    def _flag(cls, value: Any) -> bool:
        if not isinstance(value, bool):
            raise check.problem("must be true or false", value=value)
        return value


class PlanWorkload(check.Table):
    """The training run the report's plan section plans (`[plan]`): 6 x params x tokens
    FLOPs, optional deadline and budget, and which offers to consider. The default is the
    70B-on-2T-tokens run of the cost docs."""

    params: Positive = 70e9
    tokens: Positive = 2e12
    deadline_hours: Positive | None = None
    budget_usd: Positive | None = None
    max_gpus: Annotated[int, check.number(1, whole=True)] = 16384
    providers: Providers = None
    pricing_models: tuple[str, ...] | None = None
    gpu_names: tuple[str, ...] | None = None
    # configured instance limits of one offer (models.capacity): every offer, and per
    # provider or "provider/instance_type" ([plan.capacity])
    max_instances: Annotated[int, check.number(1, whole=True)] | None = None
    capacity: dict[str, Annotated[int, check.number(1, whole=True)]] = Field(default_factory=dict)

    @property
    def limits(self) -> dict[str, int]:
        """The configured limits as models.capacity reads them ("*" = every offer)."""
        every = {} if self.max_instances is None else {"*": self.max_instances}
        return {**every, **self.capacity}

    @field_validator("pricing_models", mode="before")
    @classmethod
    def _pricing_models(cls, value: Any) -> tuple[str, ...]:
        given = check.strings(value)
        for i, model in enumerate(given):
            check.pricing_model(model, i)
        return given

    @field_validator("gpu_names", mode="before")
    @classmethod
    def _gpu_names(cls, value: Any, info: ValidationInfo) -> tuple[str, ...]:
        gpus = tuple(g.upper() for g in check.strings(value))
        known = {g for g, _ in check.specs(info)}
        for i, gpu in enumerate(gpus):
            if gpu not in known:
                raise check.problem("unknown GPU (not in seed_gpu_specs)", i, value=gpu)
        return gpus


class Config(check.Table):
    """The whole file. `source` is the file it was read from (None: built-in defaults)."""

    _internal: ClassVar[frozenset[str]] = frozenset({"source"})

    source: Path | None = None
    warehouse: Path | None = None
    # the `[providers.<name>]` tables, keyed by connector (the code that reads one source;
    # `sheets` reads the price sheets of several providers): connector -> regions (None:
    # the connector's defaults). Empty: every registered connector.
    providers: Annotated[
        dict[
            Annotated[str, AfterValidator(check.connector)],
            Annotated[tuple[str, ...] | None, BeforeValidator(check.regions)],
        ],
        BeforeValidator(check.providers_table),
    ] = Field(default_factory=dict)
    schedule: Schedule = Schedule()
    alerts: Alerts = Alerts()
    notify: Annotated[tuple[Target, ...], check.items("notify"), check.unique_names("notify")] = ()
    budgets: Annotated[
        tuple[Budget, ...], check.items("budgets"), check.unique_names("budgets")
    ] = ()
    rules: Annotated[tuple[RateRule, ...], check.items("rules"), check.unique_names("rules")] = ()
    publish: Publish = Publish()
    plan: PlanWorkload = PlanWorkload()
    checks: Checks = Checks()

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        source = (info.context or {}).get("source")
        return {**entry, "source": source} if source is not None else entry

    @field_validator("warehouse", mode="before")
    @classmethod
    def _warehouse(cls, value: Any, info: ValidationInfo) -> Any:
        if value is None or isinstance(value, Path):
            return value
        return Path(check.relative_to_file(check.string(value), info))

    @property
    def stale_after_hours(self) -> float:  # 0 disables
        return self.alerts.stale_after_hours

    @property
    def sheet_stale_after_days(self) -> float:  # 0 disables
        return self.alerts.sheet_stale_after_days

    @property
    def row_drop_pct(self) -> float:  # 0 disables
        return self.alerts.row_drop_pct

    def connector_names(self) -> list[str]:
        from connectors import registry

        return list(self.providers) or list(registry.PROVIDERS)

    def regions_for(self, connector: str) -> tuple[str, ...] | None:
        return self.providers.get(connector)

    def warehouse_path(self, explicit: str | Path | None = None) -> Path:
        """--warehouse, else $GPU_PRICING_WAREHOUSE, else the file's `warehouse`, else the
        default under the working directory."""
        if explicit:
            return Path(explicit)
        if os.environ.get(db.ENV_VAR) or self.warehouse is None:
            return db.default_path()
        return self.warehouse


# -- finding and reading the file -----------------------------------------------------------


def config_path(explicit: str | Path | None = None) -> Path | None:
    """The file to read: --config, else $GPU_PRICING_CONFIG, else ./gpu-pricing.toml if it
    exists, else None (built-in defaults). A path that was asked for must exist."""
    asked = explicit or os.environ.get(ENV_VAR)
    if asked:
        path = Path(asked)
        if not path.is_file():
            where = "--config" if explicit else f"${ENV_VAR}"
            raise ConfigError(f"config {path}: no such file (from {where})")
        return path
    default = Path.cwd() / DEFAULT_NAME
    return default if default.is_file() else None


def load(explicit: str | Path | None = None) -> Config:
    path = config_path(explicit)
    if path is None:
        return Config()
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config {path}: cannot be read ({exc})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config {path}: not valid TOML ({exc})") from None
    return parse(doc, path)


def parse(doc: dict[str, Any], source: Path | None = None) -> Config:
    """A parsed TOML document as a Config; its first problem as one ConfigError line."""
    try:
        return Config.model_validate(doc, context={"source": source, "specs": gpu_specs()})
    except ValidationError as exc:
        raise check.one_line(exc, source) from None
