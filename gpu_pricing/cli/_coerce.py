"""The options' plain values, converted without pydantic.

Typer converts each option's value through a pydantic TypeAdapter that it builds on first
use (typer._coercion): importing pydantic and building the adapters is ~0.3 s of CPU at the
start of every command where Python compiles modules from source (PYTHONDONTWRITEBYTECODE),
more than DuckDB's import. The values commands are given most often (an option's default,
a string, a path, a whole or decimal number written in plain digits) are converted here as
typer converts them; any other value, and a number outside its option's bounds, goes to
typer's own conversion, so its errors are typer's. `install` (called by gpu_pricing.cli)
puts this on every typer parameter; a typer whose internals differ keeps its own
conversion (tests/app/cli/test_coerce.py then fails, and compares both on many values).
"""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer import BadParameter

try:  # typer's internals: without them, typer converts every value itself
    from typer._coercion import RuntimeParam, build_runtime_param
    from typer._param_types import coerce_cli_path
    from typer.core import _TyperParameter
except ImportError:  # pragma: no cover - another typer
    RuntimeParam = None  # type: ignore[assignment,misc]

_WHOLE = re.compile(r"[0-9]{1,15}")
_DECIMAL = re.compile(r"[0-9]{1,15}(?:\.[0-9]{1,15})?")
_TYPER = object()  # the value is typer's to convert


def _bounded(number: int | float, info: Any) -> Any:
    if info.clamp:
        return _TYPER
    if (info.min is not None and number < info.min) or (info.max is not None and number > info.max):
        return _TYPER  # typer's error names the bound
    return number


def direct(annotation: Any, info: Any, value: Any) -> Any:
    """`value` as typer converts it to `annotation` (a str, int or float option), or
    _TYPER when typer is to convert it (any other annotation: a flag's bool)."""
    kind = type(value)
    if annotation is str:
        return value if kind is str else _TYPER
    if annotation is int:
        if kind is int:
            return _bounded(value, info)
        if kind is str and _WHOLE.fullmatch(value):
            return _bounded(int(value), info)
    if annotation is float:
        if kind is float:
            return _bounded(value, info)
        if kind is int or (kind is str and _DECIMAL.fullmatch(value)):
            return _bounded(float(value), info)
    return _TYPER


def _plain(param: Any) -> bool:
    """A single value of a str, int, float, bool or Path option, with no parser of its own
    (a flag's value None is None without any conversion; True or False is not converted)."""
    descriptor = param.type_descriptor
    info = descriptor.parameter_info
    annotation = descriptor.annotation
    path = isinstance(annotation, type) and issubclass(annotation, Path) and info.path_type is None
    return (
        (annotation in (str, int, float, bool) or path)
        and descriptor.file_annotation is None
        and info.parser is None
        and getattr(info, "click_type", None) is None
        and not param.multiple
        and param.nargs == 1
    )


if RuntimeParam is not None:

    @dataclass(frozen=True)
    class Direct(RuntimeParam):  # type: ignore[misc,valid-type]
        """An option's conversion: `direct`, else typer's own (built when first needed)."""

        descriptor: Any = None
        typers: list = field(default_factory=list)

        def _coerce_value(self, value: Any, param: Any, ctx: Any) -> Any:
            annotation = self.annotation
            if isinstance(annotation, type) and issubclass(annotation, Path):
                if type(value) is str:
                    # typer's checks (exists, readable, ...) on the path typer makes of it;
                    # a path that fails one is typer's to report (its message quotes the
                    # value as given)
                    with contextlib.suppress(BadParameter):
                        return coerce_cli_path(
                            annotation(value), self.parameter_info, path_type=annotation,
                            param=param, ctx=ctx,
                        )  # fmt: skip
            else:
                got = direct(annotation, self.parameter_info, value)
                if got is not _TYPER:
                    return got
            if not self.typers:
                self.typers.append(build_runtime_param(self.descriptor))
            return self.typers[0]._coerce_value(value, param=param, ctx=ctx)


def install() -> None:
    """Give every typer parameter of this process this conversion when it is first needed
    (the root's options, each command's, their `--help`)."""
    if RuntimeParam is None or not hasattr(_TyperParameter, "get_runtime_param"):
        return  # pragma: no cover - another typer
    typers_own = _TyperParameter.get_runtime_param
    if getattr(typers_own, "direct", False):
        return

    def get_runtime_param(self: Any) -> Any:
        if getattr(self, "_runtime_param", False) is None and _plain(self):
            d = self.type_descriptor
            self._runtime_param = Direct(
                parameter_info=d.parameter_info, annotation=d.annotation, descriptor=d
            )
        return typers_own(self)

    get_runtime_param.direct = True  # type: ignore[attr-defined]
    _TyperParameter.get_runtime_param = get_runtime_param
