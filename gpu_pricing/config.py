"""`gpu-pricing.toml`: where the warehouse lives, what to refresh and when, who to tell,
and the budgets and rate rules to watch (example: gpu-pricing.example.toml).

Found by `--config PATH`, else `$GPU_PRICING_CONFIG`, else `./gpu-pricing.toml` if it
exists, else built-in defaults (every provider, nightly at 02:00 UTC, health rules only).
Validated in full on load: any problem is one `InvalidInput` line naming the file, the key
and the value (exit 2), raised before anything touches the warehouse. Unknown keys are
errors too, so a typo never silently disables a budget.

Secrets (webhook tokens, SMTP passwords, API keys) never live in the file: a notification
target names an environment variable (`url_env`) or a Prefect Secret block
(`secret_block`) that holds its Apprise URL, resolved only at delivery time. A `url` key is
rejected, and its value is never echoed; no error echoes a value that looks like a
credential (a URL shows only its scheme and host, a key only its length).
"""

from __future__ import annotations

import csv
import os
import re
import tomllib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from connectors import registry
from connectors._redact import masked_value, register_env
from connectors.errors import InvalidInput
from gpu_pricing import names
from warehouse import db
from warehouse.schemas import PRICING_MODELS

ENV_VAR = "GPU_PRICING_CONFIG"
DEFAULT_NAME = "gpu-pricing.toml"
SEED_GPU_SPECS = Path(__file__).resolve().parent.parent / "sql" / "seeds" / "seed_gpu_specs.csv"

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
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$")
_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_UNSET = object()
_PUBLISH_SCHEMES = {"file", "s3", "s3a", "gs", "gcs", "az", "abfs", "abfss"}
_SECRET_KEY = re.compile(r"secret|password|token|credential|access-key|account-key|sas", re.I)


class ConfigError(InvalidInput):
    """A configuration problem: one line naming the file, the key and the value."""


@dataclass(frozen=True)
class Schedule:
    cron: str = DEFAULT_CRON
    timezone: str = DEFAULT_TIMEZONE


@dataclass(frozen=True)
class Target:
    """A notification target: its Apprise URL comes from an environment variable or a
    Prefect Secret block, never from the file."""

    name: str
    url_env: str | None = None
    secret_block: str | None = None

    @property
    def source(self) -> str:
        return f"${self.url_env}" if self.url_env else f"Secret block {self.secret_block!r}"


@dataclass(frozen=True)
class Budget:
    """A workload and its budget. Usage form: `gpus` GPUs for `hours_per_day` hours a day.
    Training form: one run of `params` x `tokens` at `mfu` (6ND, models.training)."""

    name: str
    gpu: str
    gpus: int
    pricing_model: str
    budget_usd: float
    period: str  # "month" (calendar month, resets on the 1st) | "total"
    memory_gib: float | None = None
    thresholds_pct: tuple[float, ...] = DEFAULT_THRESHOLDS_PCT
    providers: tuple[str, ...] | None = None
    hours_per_day: float | None = None
    start: date | None = None
    end: date | None = None
    params: float | None = None
    tokens: float | None = None
    mfu: float | None = None

    @property
    def is_training(self) -> bool:
        return self.params is not None


@dataclass(frozen=True)
class RateRule:
    """price_above / price_below: the cheapest rate vs a USD/GPU-hour level;
    day_over_day: the cheapest rate's move in 24 h vs a percentage;
    spot_ratio: cheapest spot as a percentage of cheapest on-demand vs a percentage."""

    name: str
    kind: str
    gpu: str
    level: float
    memory_gib: float | None = None
    pricing_model: str | None = None
    providers: tuple[str, ...] | None = None


@dataclass(frozen=True)
class Publish:
    """[publish]: where `gpu-pricing publish` (and, when `to` is set, the nightly flow's
    last step) writes the Iceberg tables. `catalog` and `properties` are pyiceberg catalog
    and FileIO properties; a key ending in `_env` names the environment variable that holds
    its value (a Postgres URI with its password, a REST token), read at publish time."""

    to: str | None = None
    namespace: str = "gpu_pricing"
    duckdb: bool = True
    catalog: dict[str, str] = field(default_factory=dict)
    properties: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class PlanWorkload:
    """The training run the report's plan section plans (`[plan]`): 6 x params x tokens
    FLOPs, optional deadline and budget, and which offers to consider. The default is the
    70B-on-2T-tokens run of the cost docs."""

    params: float = 70e9
    tokens: float = 2e12
    deadline_hours: float | None = None
    budget_usd: float | None = None
    max_gpus: int = 16384
    providers: tuple[str, ...] | None = None
    pricing_models: tuple[str, ...] | None = None
    gpu_names: tuple[str, ...] | None = None
    # configured instance limits (models.capacity): "*" (`max_instances`), a provider, or
    # "provider/instance_type" (`[plan.capacity]`) -> instances
    capacity: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Config:
    source: Path | None = None  # None: built-in defaults
    warehouse: Path | None = None
    # the `[providers.<name>]` tables, keyed by connector (the code that reads one source;
    # `sheets` reads the price sheets of several providers): connector -> regions (None:
    # the connector's defaults). Empty: every registered connector.
    providers: dict[str, tuple[str, ...] | None] = field(default_factory=dict)
    schedule: Schedule = Schedule()
    stale_after_hours: float = DEFAULT_STALE_AFTER_HOURS  # 0 disables
    sheet_stale_after_days: float = DEFAULT_SHEET_STALE_AFTER_DAYS  # 0 disables
    row_drop_pct: float = DEFAULT_ROW_DROP_PCT  # 0 disables
    notify: tuple[Target, ...] = ()
    budgets: tuple[Budget, ...] = ()
    rules: tuple[RateRule, ...] = ()
    publish: Publish = Publish()
    plan: PlanWorkload = PlanWorkload()

    def connector_names(self) -> list[str]:
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
    return _Parser(source, gpu_specs()).config(doc)


def gpu_specs() -> dict[tuple[str, float], float | None]:
    """(gpu_name, gpu_memory_gib) -> dense BF16 TFLOPS (None where the part has none),
    from the seed dim_gpus is built from: config validation needs no warehouse."""
    with SEED_GPU_SPECS.open(newline="", encoding="utf-8") as fh:
        return {
            (row["gpu_name"], float(row["gpu_memory_gib"])): (
                float(row["bf16_tflops"]) if row["bf16_tflops"] else None
            )
            for row in csv.DictReader(fh)
        }


class _Parser:
    def __init__(self, source: Path | None, specs: dict[tuple[str, float], float | None]):
        self.source = source
        self.specs = specs

    # -- errors and primitive readers ---------------------------------------------------

    def fail(self, key: str, problem: str, value: Any = _UNSET) -> ConfigError:
        """One line: file, key, problem and (when given) the offending value, masked where
        it looks like a credential: a URL shows only its scheme and host, a key-shaped
        string only its length (connectors._redact.masked_value)."""
        where = f"config {self.source}" if self.source else "config"
        got = "" if value is _UNSET else f", got {masked_value(value)!r}"
        return ConfigError(f"{where}: {key}: {problem}{got}")

    def table(self, key: str, value: Any, allowed: set[str]) -> dict:
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table", value)
        for name in value:
            if name not in allowed:
                hint = f"unknown key (known: {', '.join(sorted(allowed))})"
                raise self.fail(f"{key}.{name}" if key else name, hint, value[name])
        return value

    def number(self, key: str, value: Any, *, minimum: float = 0.0, strict: bool = False) -> float:
        if value is None:
            raise self.fail(key, "is required")
        if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
            raise self.fail(key, "must be a number", value)
        if value < minimum or (strict and value == minimum):
            raise self.fail(key, f"must be {'>' if strict else '>='} {minimum:g}", value)
        return float(value)

    def string(self, key: str, value: Any) -> str:
        if value is None:
            raise self.fail(key, "is required")
        if not isinstance(value, str) or not value.strip():
            raise self.fail(key, "must be a non-empty string", value)
        return value.strip()

    def name(self, key: str, value: Any, seen: set[str]) -> str:
        name = self.string(key, value)
        if not _NAME.match(name):
            raise self.fail(key, "must be 1-80 letters, digits, spaces, '_', '.' or '-'", value)
        if name in seen:
            raise self.fail(key, "is used twice", value)
        seen.add(name)
        return name

    def strings(self, key: str, value: Any) -> tuple[str, ...]:
        if not isinstance(value, list) or not value:
            raise self.fail(key, "must be a non-empty list of strings", value)
        return tuple(self.string(f"{key}[{i}]", v) for i, v in enumerate(value))

    def providers_filter(self, key: str, entry: dict) -> tuple[str, ...] | None:
        """An entry's optional `providers = [...]`: the providers prices are about, any case
        (connectors and the providers price sheets publish: coreweave, paperspace ...), or
        None (all)."""
        if "providers" not in entry:
            return None
        given = self.strings(f"{key}.providers", entry["providers"])
        return tuple(
            self.named(f"{key}.providers[{i}]", names.provider, name)
            for i, name in enumerate(given)
        )

    def named(self, key: str, read, value: str):
        """A name read by gpu_pricing.names; a miss is this file's one-line error."""
        try:
            return read(value)
        except names.UnknownName as exc:
            raise self.fail(key, exc.problem, value) from None

    def connector(self, key: str, name: str) -> None:
        if name not in registry.PROVIDERS:
            known = ", ".join(sorted(registry.PROVIDERS))
            raise self.fail(key, f"unknown connector (known: {known})", name)

    def pricing_model(self, key: str, value: Any) -> str:
        if not isinstance(value, str):
            raise self.fail(key, f"must be one of {', '.join(PRICING_MODELS)}", value)
        return self.named(key, names.pricing_model, value)

    def gpu(self, key: str, entry: dict) -> tuple[str, float | None]:
        raw = self.string(f"{key}.gpu", entry.get("gpu"))
        # any case, memory may ride along: "h100", "A100-80GB" (gpu_pricing.names)
        choice = self.named(f"{key}.gpu", names.gpu, raw)
        gpu = choice.name
        memory = entry.get("memory_gib", choice.memory_gib)
        sizes = sorted(m for g, m in self.specs if g == gpu)
        if memory is None:
            return gpu, None
        memory = self.number(f"{key}.memory_gib", memory, strict=True)
        if memory not in sizes:
            raise self.fail(
                f"{key}.memory_gib",
                f"{gpu} comes with {', '.join(f'{m:g}' for m in sizes)} GiB in seed_gpu_specs",
                entry["memory_gib"],
            )
        return gpu, memory

    def items(self, doc: dict, key: str) -> list[dict]:
        value = doc.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise self.fail(key, f"must be an array of tables ([[{key}]])", value)
        return value

    # -- sections -------------------------------------------------------------------------

    def config(self, doc: dict) -> Config:
        top = self.table(
            "",
            doc,
            {"warehouse", "providers", "schedule", "alerts", "notify", "budgets", "rules"}
            | {"publish", "plan"},
        )
        warehouse = None
        if "warehouse" in top:
            warehouse = Path(self.string("warehouse", top["warehouse"]))
            if self.source is not None and not warehouse.is_absolute():
                warehouse = self.source.resolve().parent / warehouse
        alerts = self.table(
            "alerts",
            top.get("alerts", {}),
            {"stale_after_hours", "sheet_stale_after_days", "row_drop_pct"},
        )
        row_drop = self.number(
            "alerts.row_drop_pct", alerts.get("row_drop_pct", DEFAULT_ROW_DROP_PCT)
        )
        if row_drop > 100:
            raise self.fail("alerts.row_drop_pct", "must be <= 100", alerts["row_drop_pct"])
        notify = self.targets(top)
        return Config(
            source=self.source,
            warehouse=warehouse,
            providers=self.providers(top),
            schedule=self.schedule(top),
            stale_after_hours=self.number(
                "alerts.stale_after_hours",
                alerts.get("stale_after_hours", DEFAULT_STALE_AFTER_HOURS),
            ),
            sheet_stale_after_days=self.number(
                "alerts.sheet_stale_after_days",
                alerts.get("sheet_stale_after_days", DEFAULT_SHEET_STALE_AFTER_DAYS),
            ),
            row_drop_pct=row_drop,
            notify=notify,
            budgets=self.budgets(top),
            rules=self.rules(top),
            publish=self.publish(top),
            plan=self.plan(top),
        )

    def publish(self, top: dict) -> Publish:
        keys = {"to", "namespace", "duckdb", "catalog", "properties"}
        section = self.table("publish", top.get("publish", {}), keys)
        to = None
        if "to" in section:
            to = self.string("publish.to", section["to"])
            scheme = re.match(r"^([A-Za-z][A-Za-z0-9+.-]+)://", to)
            if scheme and scheme.group(1) not in _PUBLISH_SCHEMES:
                raise self.fail(
                    "publish.to", "must be a local path or an s3://, gs:// or az:// URL", to
                )
            if scheme is None and self.source is not None and not Path(to).is_absolute():
                to = str(self.source.resolve().parent / to)
        namespace = self.string("publish.namespace", section.get("namespace", "gpu_pricing"))
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,63}", namespace):
            raise self.fail("publish.namespace", "letters, digits and '_' only", namespace)
        duck = section.get("duckdb", True)
        if not isinstance(duck, bool):
            raise self.fail("publish.duckdb", "must be true or false", duck)
        return Publish(
            to=to,
            namespace=namespace,
            duckdb=duck,
            catalog=self.properties_table("publish.catalog", section.get("catalog", {})),
            properties=self.properties_table("publish.properties", section.get("properties", {})),
        )

    def properties_table(self, key: str, value: Any) -> dict[str, str]:
        """String properties; secrets only by reference (`<name>_env = "VAR"`), never inline
        and never echoed."""
        if not isinstance(value, dict):
            raise self.fail(key, "must be a table of string properties", value)
        out = {}
        for name, item in value.items():
            if not isinstance(item, str | int | float | bool) or isinstance(item, dict):
                raise self.fail(f"{key}.{name}", "must be a string")
            if name.endswith("_env"):
                if not _ENV_NAME.match(str(item)):
                    raise self.fail(f"{key}.{name}", "must be an environment variable name", item)
            elif _SECRET_KEY.search(name) or re.search(r"://[^/@\s]*:[^/@\s]*@", str(item)):
                raise self.fail(
                    f"{key}.{name}",
                    f"a secret does not belong in the file; put it in an environment variable "
                    f"and name that with {name}_env",
                )
            out[name] = str(item).lower() if isinstance(item, bool) else str(item)
        return out

    def providers(self, top: dict) -> dict[str, tuple[str, ...] | None]:
        section = top.get("providers", {})
        if not isinstance(section, dict):
            raise self.fail("providers", "must be a table of [providers.<name>] tables", section)
        out: dict[str, tuple[str, ...] | None] = {}
        for name, entry in section.items():
            key = f"providers.{name}"
            self.connector(key, name)
            entry = self.table(key, entry, {"regions"})
            out[name] = (
                self.strings(f"{key}.regions", entry["regions"]) if "regions" in entry else None
            )
        return out

    def schedule(self, top: dict) -> Schedule:
        from croniter import croniter

        section = self.table("schedule", top.get("schedule", {}), {"cron", "timezone"})
        cron = self.string("schedule.cron", section.get("cron", DEFAULT_CRON))
        # five fields: Prefect's cron schedules take no seconds field
        if len(cron.split()) != 5 or not croniter.is_valid(cron):
            raise self.fail("schedule.cron", "not a valid 5-field cron expression", cron)
        tz = self.string("schedule.timezone", section.get("timezone", DEFAULT_TIMEZONE))
        try:
            ZoneInfo(tz)
        except (ZoneInfoNotFoundError, ValueError):
            raise self.fail("schedule.timezone", "unknown IANA time zone", tz) from None
        return Schedule(cron, tz)

    def targets(self, top: dict) -> tuple[Target, ...]:
        out, seen = [], set()
        for i, raw in enumerate(self.items(top, "notify")):
            key = f"notify[{i}]"
            if "url" in raw:
                # never echo it: an Apprise URL usually carries the token
                raise self.fail(
                    f"{key}.url",
                    "an Apprise URL carries its secret; put it in an environment variable "
                    "and name that with url_env (or use secret_block)",
                )
            entry = self.table(key, raw, {"name", "url_env", "secret_block"})
            name = self.name(f"{key}.name", entry.get("name"), seen)
            url_env = entry.get("url_env")
            block = entry.get("secret_block")
            if (url_env is None) == (block is None):
                raise self.fail(key, "needs exactly one of url_env or secret_block", entry)
            if url_env is not None and not _ENV_NAME.match(str(url_env)):
                raise self.fail(f"{key}.url_env", "must be an environment variable name", url_env)
            if block is not None:
                self.string(f"{key}.secret_block", block)
            if url_env is not None:
                register_env(str(url_env))  # its value is masked in every output
            out.append(Target(name, url_env, block))
        return tuple(out)

    def budgets(self, top: dict) -> tuple[Budget, ...]:
        common = {"name", "gpu", "memory_gib", "gpus", "pricing_model", "budget_usd"}
        common |= {"period", "thresholds_pct", "providers"}
        usage, training = {"hours_per_day", "start", "end"}, {"params", "tokens", "mfu"}
        out, seen = [], set()
        for i, raw in enumerate(self.items(top, "budgets")):
            key = f"budgets[{i}]"
            entry = self.table(key, raw, common | usage | training)
            name = self.name(f"{key}.name", entry.get("name"), seen)
            gpu, memory = self.gpu(key, entry)
            gpus = self.number(f"{key}.gpus", entry.get("gpus", 1), minimum=1)
            if not gpus.is_integer():
                raise self.fail(f"{key}.gpus", "must be a whole number", entry["gpus"])
            thresholds = entry.get("thresholds_pct", list(DEFAULT_THRESHOLDS_PCT))
            if not isinstance(thresholds, list) or not thresholds:
                raise self.fail(f"{key}.thresholds_pct", "must be a non-empty list", thresholds)
            pcts = tuple(
                sorted(
                    {
                        self.number(f"{key}.thresholds_pct[{j}]", t, strict=True)
                        for j, t in enumerate(thresholds)
                    }
                )
            )
            is_training = bool(training & entry.keys())
            period = entry.get("period", "total" if is_training else "month")
            if period not in ("month", "total"):
                raise self.fail(f"{key}.period", "must be 'month' or 'total'", period)
            budget = Budget(
                name=name,
                gpu=gpu,
                memory_gib=memory,
                gpus=int(gpus),
                pricing_model=self.pricing_model(
                    f"{key}.pricing_model", entry.get("pricing_model", "on_demand")
                ),
                budget_usd=self.number(f"{key}.budget_usd", entry.get("budget_usd"), strict=True),
                period=period,
                thresholds_pct=pcts,
                providers=self.providers_filter(key, entry),
            )
            if is_training:
                budget = self.training_budget(key, entry, budget, usage)
            else:
                budget = self.usage_budget(key, entry, budget)
            out.append(budget)
        return tuple(out)

    def training_budget(self, key: str, entry: dict, budget: Budget, usage: set[str]) -> Budget:
        for k in sorted(usage & entry.keys()):
            raise self.fail(f"{key}.{k}", "is for usage budgets, not a training run", entry[k])
        for k in ("params", "tokens", "mfu"):
            if k not in entry:
                raise self.fail(f"{key}.{k}", "a training budget needs params, tokens and mfu")
        if budget.period != "total":
            raise self.fail(f"{key}.period", "a training run has a 'total' budget", budget.period)
        mfu = self.number(f"{key}.mfu", entry["mfu"], strict=True)
        if mfu > 1:
            raise self.fail(f"{key}.mfu", "must be in (0, 1]", entry["mfu"])
        sizes = [m for g, m in self.specs if g == budget.gpu]
        peaks = [self.specs[(budget.gpu, m)] for m in sizes if budget.memory_gib in (None, m)]
        if not any(peaks):
            raise self.fail(
                f"{key}.gpu",
                "has no BF16 peak in seed_gpu_specs, so no training estimate",
                budget.gpu,
            )
        return Budget(
            **{
                **vars(budget),
                "params": self.number(f"{key}.params", entry["params"], strict=True),
                "tokens": self.number(f"{key}.tokens", entry["tokens"], strict=True),
                "mfu": mfu,
            }
        )

    def usage_budget(self, key: str, entry: dict, budget: Budget) -> Budget:
        if "hours_per_day" not in entry:
            raise self.fail(
                f"{key}.hours_per_day", "a usage budget needs hours_per_day (or params/tokens/mfu)"
            )
        hours = self.number(f"{key}.hours_per_day", entry["hours_per_day"], strict=True)
        if hours > 24:
            raise self.fail(f"{key}.hours_per_day", "must be <= 24", entry["hours_per_day"])
        start, end = entry.get("start"), entry.get("end")
        for k, v in (("start", start), ("end", end)):
            if v is not None and type(v) is not date:
                raise self.fail(f"{key}.{k}", "must be a TOML date (2026-11-01)", v)
        if budget.period == "total" and (start is None or end is None):
            raise self.fail(f"{key}.period", "a 'total' usage budget needs start and end dates")
        if budget.period == "month" and (start is not None or end is not None):
            raise self.fail(f"{key}.period", "start/end apply to period = 'total' only", "month")
        if start is not None and end is not None and end <= start:
            raise self.fail(f"{key}.end", f"must be after start ({start})", end)
        return Budget(**{**vars(budget), "hours_per_day": hours, "start": start, "end": end})

    def rules(self, top: dict) -> tuple[RateRule, ...]:
        out, seen = [], set()
        common = {"name", "kind", "gpu", "memory_gib", "pricing_model", "providers"}
        for i, raw in enumerate(self.items(top, "rules")):
            key = f"rules[{i}]"
            kind = raw.get("kind")
            if kind not in RULE_LEVEL_KEYS:
                raise self.fail(f"{key}.kind", f"must be one of {', '.join(RULE_LEVEL_KEYS)}", kind)
            level_key = RULE_LEVEL_KEYS[kind]
            entry = self.table(key, raw, common | {level_key})
            name = self.name(f"{key}.name", entry.get("name"), seen)
            gpu, memory = self.gpu(key, entry)
            if level_key not in entry:
                raise self.fail(f"{key}.{level_key}", f"a {kind} rule needs {level_key}")
            level = self.number(f"{key}.{level_key}", entry[level_key], strict=True)
            if kind == "spot_ratio":
                if "pricing_model" in entry:
                    raise self.fail(
                        f"{key}.pricing_model",
                        "spot_ratio compares spot with on_demand",
                        entry["pricing_model"],
                    )
                pricing = None
            else:
                pricing = self.pricing_model(
                    f"{key}.pricing_model", entry.get("pricing_model", "on_demand")
                )
            out.append(
                RateRule(
                    name=name,
                    kind=kind,
                    gpu=gpu,
                    level=level,
                    memory_gib=memory,
                    pricing_model=pricing,
                    providers=self.providers_filter(key, entry),
                )
            )
        return tuple(out)

    def plan(self, top: dict) -> PlanWorkload:
        keys = {"params", "tokens", "deadline_hours", "budget_usd", "max_gpus", "providers"}
        entry = self.table(
            "plan",
            top.get("plan", {}),
            keys | {"pricing_models", "gpu_names", "max_instances", "capacity"},
        )
        default = PlanWorkload()
        optional = {
            k: self.number(f"plan.{k}", entry[k], strict=True)
            for k in ("deadline_hours", "budget_usd")
            if k in entry
        }
        max_gpus = self.number("plan.max_gpus", entry.get("max_gpus", default.max_gpus), minimum=1)
        if not max_gpus.is_integer():
            raise self.fail("plan.max_gpus", "must be a whole number", entry["max_gpus"])
        pricing = None
        if "pricing_models" in entry:
            pricing = self.strings("plan.pricing_models", entry["pricing_models"])
            for i, model in enumerate(pricing):
                self.pricing_model(f"plan.pricing_models[{i}]", model)
        names = None
        if "gpu_names" in entry:
            names = tuple(g.upper() for g in self.strings("plan.gpu_names", entry["gpu_names"]))
            known = {g for g, _ in self.specs}
            for i, gpu in enumerate(names):
                if gpu not in known:
                    raise self.fail(
                        f"plan.gpu_names[{i}]", "unknown GPU (not in seed_gpu_specs)", gpu
                    )
        capacity: dict[str, int] = {}
        limits = {"*": entry["max_instances"]} if "max_instances" in entry else {}
        raw_capacity = entry.get("capacity", {})
        if not isinstance(raw_capacity, dict):
            raise self.fail("plan.capacity", "must be a table of provider[/instance_type] = instances", raw_capacity)
        for key, value in {**limits, **raw_capacity}.items():
            where = "plan.max_instances" if key == "*" else f"plan.capacity.{key}"
            number = self.number(where, value, minimum=1)
            if not number.is_integer():
                raise self.fail(where, "must be a whole number of instances", value)
            capacity[str(key)] = int(number)
        return PlanWorkload(
            capacity=capacity,
            params=self.number("plan.params", entry.get("params", default.params), strict=True),
            tokens=self.number("plan.tokens", entry.get("tokens", default.tokens), strict=True),
            max_gpus=int(max_gpus),
            providers=self.providers_filter("plan", entry),
            pricing_models=pricing,
            gpu_names=names,
            **optional,
        )
