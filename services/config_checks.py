"""The checks behind gpu-pricing.toml's models (services.config): each value type's
validator, the base of every table (its keys are its fields; any other key is an error
naming the known ones), and pydantic's first error as this file's one line naming the
file, the key and the value, masked where it looks like a credential."""

from __future__ import annotations

import csv
import re
from datetime import date
from pathlib import Path
from typing import Annotated, Any, ClassVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    ValidationError,
    ValidationInfo,
    model_validator,
)
from pydantic_core import PydanticCustomError

from common import names
from common.errors import InvalidInput
from common.gpu_seeds import SEED_GPU_SPECS
from common.redact import masked_value
from common.schemas import PRICING_MODELS

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 _.-]{0,79}$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
UNSET = object()
PUBLISH_SCHEMES = {"file", "s3", "s3a", "gs", "gcs", "az", "abfs", "abfss"}
SECRET_KEY = re.compile(r"secret|password|token|credential|access-key|account-key|sas", re.I)


class ConfigError(InvalidInput):
    """A configuration problem: one line naming the file, the key and the value."""


# -- one-line problems ----------------------------------------------------------------------


def problem(problem: str, *at: str | int, value: Any = UNSET) -> PydanticCustomError:
    """A problem found by a validator: `at` continues pydantic's location of the table or
    key being validated (a key inside it, a list index), `value` is what to show."""
    return PydanticCustomError(
        "config", "{problem}", {"problem": problem, "at": at, "value": value}
    )


def key_of(loc: tuple) -> str:
    out = ""
    for part in loc:
        if part == "[key]":  # pydantic marks a problem with a table's key, not its value
            continue
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def one_line(exc: ValidationError, source: Path | None) -> ConfigError:
    """pydantic's first error as this file's one line: file, key, problem and (when there is
    one) the offending value, masked where it looks like a credential (a URL shows only its
    scheme and host, a key-shaped string only its length: common.redact.masked_value)."""
    err = exc.errors(include_url=False)[0]
    ctx = err.get("ctx") or {}
    if err["type"] == "config":
        problem, key, value = ctx["problem"], key_of((*err["loc"], *ctx["at"])), ctx["value"]
    elif err["type"] == "missing":
        problem, key, value = "is required", key_of(err["loc"]), UNSET
    else:  # a check of pydantic's own (a field type every key above overrides)
        problem, key, value = (
            err["msg"][:1].lower() + err["msg"][1:],
            key_of(err["loc"]),
            err["input"],
        )
    where = f"config {source}" if source else "config"
    got = "" if value is UNSET else f", got {masked_value(value)!r}"
    return ConfigError(f"{where}: {key}: {problem}{got}")


# -- value types ----------------------------------------------------------------------------


def as_number(
    value: Any, *at: str | int, minimum: float = 0.0, strict: bool = False, whole: bool = False
) -> float | int:
    if value is None:
        raise problem("is required", *at)
    if isinstance(value, bool) or not isinstance(value, int | float) or value != value:
        raise problem("must be a number", *at, value=value)
    if value < minimum or (strict and value == minimum):
        raise problem(f"must be {'>' if strict else '>='} {minimum:g}", *at, value=value)
    if whole and not float(value).is_integer():
        raise problem("must be a whole number", *at, value=value)
    return int(value) if whole else float(value)


def number(minimum: float = 0.0, *, strict: bool = False, whole: bool = False):
    return BeforeValidator(
        lambda value: as_number(value, minimum=minimum, strict=strict, whole=whole)
    )


def string(value: Any, *at: str | int) -> str:
    if value is None:
        raise problem("is required", *at)
    if not isinstance(value, str) or not value.strip():
        raise problem("must be a non-empty string", *at, value=value)
    return value.strip()


def strings(value: Any, *at: str | int) -> tuple[str, ...]:
    if isinstance(value, tuple):  # already read (a model built in Python)
        value = list(value)
    if not isinstance(value, list) or not value:
        raise problem("must be a non-empty list of strings", *at, value=value)
    return tuple(string(v, *at, i) for i, v in enumerate(value))


def named(read, value: str, *at: str | int):
    """A name read by common.names; a miss is this file's one-line error."""
    try:
        return read(value)
    except names.UnknownName as exc:
        raise problem(exc.problem, *at, value=value) from None


def pricing_model(value: Any, *at: str | int) -> str:
    if not isinstance(value, str):
        raise problem(f"must be one of {', '.join(PRICING_MODELS)}", *at, value=value)
    return named(names.pricing_model, value, *at)


def providers(value: Any) -> tuple[str, ...] | None:
    """An optional `providers = [...]`: the providers prices are about, any case
    (connectors and the providers price sheets publish: coreweave, paperspace ...), or None
    (all)."""
    if value is None:
        return None
    import connectors.registry  # noqa: F401 - builds the connectors: they register the names

    return tuple(named(names.provider, p, i) for i, p in enumerate(strings(value)))


def name(value: Any) -> str:
    name = string(value)
    if not NAME.match(name):
        raise problem("must be 1-80 letters, digits, spaces, '_', '.' or '-'", value=value)
    return name


def env_name(value: Any) -> str:
    if not isinstance(value, str) or not ENV_NAME.match(value):
        raise problem("must be an environment variable name", value=value)
    return value


def connector(name: str) -> str:
    from connectors import registry

    if name not in registry.PROVIDERS:
        known = ", ".join(sorted(registry.PROVIDERS))
        raise problem(f"unknown connector (known: {known})", value=name)
    return name


def regions(entry: Any) -> tuple[str, ...] | None:
    """A `[providers.<name>]` table: its optional `regions` (None: the connector's own)."""
    if entry is None or isinstance(entry, tuple):  # built in Python
        return entry
    if not isinstance(entry, dict):
        raise problem("must be a table", value=entry)
    for key in entry:
        if key != "regions":
            raise problem("unknown key (known: regions)", key, value=entry[key])
    return strings(entry["regions"], "regions") if "regions" in entry else None


def toml_date(value: Any) -> date | None:
    if value is not None and type(value) is not date:
        raise problem("must be a TOML date (2026-11-01)", value=value)
    return value


def properties(value: Any) -> dict[str, str]:
    """String properties; secrets only by reference (`<name>_env = "VAR"`), never inline
    and never echoed."""
    if not isinstance(value, dict):
        raise problem("must be a table of string properties", value=value)
    out = {}
    for name, item in value.items():
        if not isinstance(item, str | int | float | bool):
            raise problem("must be a string", name)
        if name.endswith("_env"):
            if not ENV_NAME.match(str(item)):
                raise problem("must be an environment variable name", name, value=item)
        elif SECRET_KEY.search(name) or re.search(r"://[^/@\s]*:[^/@\s]*@", str(item)):
            raise problem(
                f"a secret does not belong in the file; put it in an environment variable "
                f"and name that with {name}_env",
                name,
            )
        out[name] = str(item).lower() if isinstance(item, bool) else str(item)
    return out


def relative_to_file(path: str, info: ValidationInfo) -> str:
    """A relative path in the file is relative to the file, not the working directory."""
    source = (info.context or {}).get("source")
    if source is not None and not Path(path).is_absolute():
        return str(Path(source).resolve().parent / path)
    return path


Positive = Annotated[float, number(strict=True)]
NonNegative = Annotated[float, number()]
Text = Annotated[str, BeforeValidator(string)]
Name = Annotated[str, BeforeValidator(name)]
Providers = Annotated[tuple[str, ...] | None, BeforeValidator(providers)]
PricingModel = Annotated[str, BeforeValidator(pricing_model)]


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


def specs(info: ValidationInfo) -> dict[tuple[str, float], float | None]:
    context = info.context if info.context is not None else {}
    if "specs" not in context:
        context["specs"] = gpu_specs()
    return context["specs"]


# -- a table of the file ---------------------------------------------------------------------------------


class Table(BaseModel):
    """A table of the file: its fields are its keys; any other key is an error naming the
    known ones. `_keys` and `_read` let a table check its keys or reshape its entry first."""

    model_config = ConfigDict(frozen=True)
    _internal: ClassVar[frozenset[str]] = frozenset()

    @classmethod
    def _keys(cls, entry: dict) -> set[str]:
        return set(cls.model_fields) - cls._internal

    @classmethod
    def _read(cls, entry: dict, info: ValidationInfo) -> dict:
        return entry

    @model_validator(mode="before")
    @classmethod
    def _check_keys(cls, entry: Any, info: ValidationInfo) -> Any:
        if isinstance(entry, cls):
            return entry
        if not isinstance(entry, dict):
            raise problem("must be a table", value=entry)
        known = cls._keys(entry)
        for key in entry:
            if key not in known:
                hint = f"unknown key (known: {', '.join(sorted(known))})"
                raise problem(hint, key, value=entry[key])
        return cls._read(dict(entry), info)


def items(key: str):
    def check(value: Any) -> Any:
        if isinstance(value, tuple):
            return value
        if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
            raise problem(f"must be an array of tables ([[{key}]])", value=value)
        return value

    return BeforeValidator(check)


def unique_names(key: str):
    def check(entries: tuple) -> tuple:
        seen: set[str] = set()
        for i, entry in enumerate(entries):
            if entry.name in seen:
                raise problem("is used twice", i, "name", value=entry.name)
            seen.add(entry.name)
        return entries

    return AfterValidator(check)


def providers_table(value: Any) -> Any:
    if not isinstance(value, dict):
        raise problem("must be a table of [providers.<name>] tables", value=value)
    return value
