"""Names people type, read into the warehouse's vocabulary: one parser for every command
and the config file.

- GPUs: case, spaces, hyphens and vendor prefixes do not matter, and a memory size or a
  form factor may ride along: `h100`, `H100 SXM`, `nvidia h100 pcie`, `A100-80GB`,
  `a100 80gb`, `H100 NVL` -> gpu_name (+ memory, + variant). Known names come from the GPU
  reference seeds (`sql/seeds/seed_gpu_specs.csv`, `seed_gpu_variants.csv`).
- Providers: case-insensitive (`AWS` -> `aws`); the registered connectors and every
  provider their rows are about (the price sheets' `coreweave`, `paperspace` ...), as
  they register in `common.providers` (the caller loads `connectors.registry` first).
- Pricing models: every model the warehouse holds (common.schemas.PRICING_MODELS), any
  case, with hyphens or spaces (`On-Demand`, `capacity block`, `Savings-Plan-1y`), and
  aliases: `ondemand`, `OD` -> on_demand; `preemptible`, `interruptible` -> spot; `1y`,
  `ri-3y` ... -> reserved_1y / reserved_3y; `sp1y` -> savings_plan_1y; `flex-start` -> flex.
- Regions: as the provider names them, any case, checked against the warehouse's.
- Precisions: fp32, tf32, bf16, fp8, and `fp16`, read as the bf16 column: dense FP16 and
  BF16 tensor rates are the same on every part that has both (NVIDIA datasheets from
  Ampere on, AMD CDNA), so the estimate says "fp16 = bf16 peak".
- Counts: `70B`, `2T`, `1.5M`, `512K`, `7e9`, `2_000` -> floats (K, M, B or G, T).

A name that matches nothing raises InvalidInput (exit 2) naming the closest known names.
"""

from __future__ import annotations

import csv
import difflib
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache

from common import gpu_seeds as _gpu
from common import providers
from common.errors import InvalidInput
from common.schemas import PRICING_MODELS

VENDOR_PREFIXES = ("NVIDIA", "AMD", "TESLA", "GEFORCE", "RADEON INSTINCT", "INSTINCT")
_SEPARATORS = re.compile(r"[\s_\-]+")
_MEMORY = re.compile(r"(?<![A-Z0-9])(\d+(?:\.\d+)?)\s*(?:GB|GIB|G)(?![A-Z0-9])")
_VARIANT = re.compile(r"(?<![A-Z0-9])(SXM\d?|PCIE|NVL)(?![A-Z0-9])")
_VARIANT_NAMES = {"PCIE": "PCIe", "NVL": "NVL"}  # SXM, SXM4, SXM5 -> "SXM"

PRICING_ALIASES = {
    "ondemand": "on_demand",
    "od": "on_demand",
    "payg": "on_demand",
    "spot": "spot",
    "preemptible": "spot",
    "interruptible": "spot",
    "reserved1y": "reserved_1y",
    "1y": "reserved_1y",
    "1yr": "reserved_1y",
    "ri1y": "reserved_1y",
    "commit1y": "reserved_1y",
    "reserved3y": "reserved_3y",
    "3y": "reserved_3y",
    "3yr": "reserved_3y",
    "ri3y": "reserved_3y",
    "commit3y": "reserved_3y",
    "capacityblock": "capacity_block",
    "capacityblocks": "capacity_block",
    "flexstart": "flex",
    "dws": "flex",
    "savingsplan1y": "savings_plan_1y",
    "sp1y": "savings_plan_1y",
    "savingsplan3y": "savings_plan_3y",
    "sp3y": "savings_plan_3y",
}
PRECISIONS = ("fp32", "tf32", "bf16", "fp8")
PRECISION_ALIASES = {"fp16": "bf16"}
SUFFIXES = {"K": 1e3, "M": 1e6, "B": 1e9, "G": 1e9, "T": 1e12}
_COUNT = re.compile(
    r"^\s*([+-]?[0-9][0-9_,]*(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)\s*([KMBGT]?)\s*$", re.I
)


class UnknownName(InvalidInput):
    """A name that matches nothing: `problem` says why and names the closest known ones."""

    def __init__(self, flag: str, raw: str, problem: str) -> None:
        super().__init__(f"{flag} {raw!r}: {problem}")
        self.problem = problem


@dataclass(frozen=True)
class Gpu:
    name: str
    memory_gib: float | None = None
    variant: str | None = None  # 'PCIe', 'SXM', ... where the name said one


def _key(text: str) -> str:
    return _SEPARATORS.sub("", text.upper())


def _closest(text: str, known: Iterable[str], n: int = 5) -> str:
    names = sorted(set(known))
    by_key = {_key(k): k for k in names}
    close = difflib.get_close_matches(_key(text), list(by_key), n=n, cutoff=0.5)
    hint = ", ".join(by_key[c] for c in close) if close else ", ".join(names[:12])
    return f"closest: {hint}" if close else f"known: {hint}{' ...' if len(names) > 12 else ''}"


@cache
def known_gpus() -> dict[str, set[float]]:
    """gpu_name -> its memory sizes, from the GPU reference seed."""
    out: dict[str, set[float]] = {}
    with _gpu.SEED_GPU_SPECS.open(newline="", encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            out.setdefault(row["gpu_name"], set()).add(float(row["gpu_memory_gib"]))
    return out


@cache
def known_variants() -> dict[str, set[str]]:
    """gpu_name -> the form factors the seeds list for it (base and extra variants)."""
    out: dict[str, set[str]] = {}
    path = _gpu.SEED_GPU_VARIANTS
    if path.exists():
        with path.open(newline="", encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                out.setdefault(row["gpu_name"], set()).update(
                    {row["gpu_variant"], row["base_variant"]}
                )
    return out


def gpu(text: str, flag: str = "--gpu") -> Gpu:
    """A GPU as typed -> the vocabulary name, plus the memory and form factor it named."""
    raw = text.strip()
    known = known_gpus()
    by_key = {_key(name): name for name in known}
    upper = " ".join(raw.upper().split())
    for prefix in VENDOR_PREFIXES:
        if upper.startswith(prefix + " ") or upper.startswith(prefix + "-"):
            upper = upper[len(prefix) + 1 :].strip()
    if _key(upper) in by_key:  # the whole text is a name: RTX A6000, H100NVL, H100 NVL
        return Gpu(by_key[_key(upper)])
    memory = None
    found = _MEMORY.search(upper)
    if found:
        memory = float(found.group(1))
        upper = (upper[: found.start()] + " " + upper[found.end() :]).strip()
    variant = None
    found = _VARIANT.search(upper)
    if found:
        token = found.group(1)
        variant = _VARIANT_NAMES.get(token, "SXM")
        upper = (upper[: found.start()] + " " + upper[found.end() :]).strip()
        if variant == "NVL" and _key(upper + "NVL") in by_key:  # H100 NVL is its own part
            return _with_memory(Gpu(by_key[_key(upper + "NVL")], memory), raw, flag)
    # the reference's own name, else the words sources use for it (common/gpu.py,
    # the rule every connector's rows pass through: "Radeon V620", "RTX 6000 Ada Generation")
    name = by_key.get(_key(upper)) or _gpu.name_of(raw)
    if name is None or name not in known:
        raise UnknownName(flag, raw, f"unknown GPU ({_closest(raw, known)})")
    if variant is not None and variant not in known_variants().get(name, set()):
        variant = None  # one form factor only: nothing to tell apart
    return _with_memory(Gpu(name, memory, variant), raw, flag)


def _with_memory(choice: Gpu, raw: str, flag: str) -> Gpu:
    sizes = known_gpus()[choice.name]
    if choice.memory_gib is not None and choice.memory_gib not in sizes:
        listed = ", ".join(f"{s:g}" for s in sorted(sizes))
        raise UnknownName(flag, raw, f"{choice.name} comes with {listed} GiB in the GPU reference")
    return choice


def gpu_and_memory(text: str, memory: float | None, flag: str = "--gpu") -> Gpu:
    """--gpu with an optional --memory: a memory in both must agree."""
    choice = gpu(text, flag)
    if memory is not None and choice.memory_gib is not None and memory != choice.memory_gib:
        raise InvalidInput(
            f"--memory {memory:g} contradicts {flag} {text!r} ({choice.memory_gib:g} GiB)"
        )
    mem = memory if memory is not None else choice.memory_gib
    return Gpu(choice.name, mem, choice.variant)


def provider(
    text: str,
    flag: str = "--provider",
    extra: Iterable[str] = (),
    *,
    register: Callable[[], object] | None = None,
) -> str:
    """A provider prices are about, any case (`AWS` -> `aws`). One of `extra` (the
    providers a warehouse holds) is answered without the connectors; any other name is
    checked against the providers they register (common.providers), built first by
    `register` when one is given (a read command builds them only then)."""
    name = text.strip().lower()
    extra = set(extra)
    if name in extra:  # known, whatever the connectors register
        return name
    if register is not None:
        register()
    known = providers.known(extra)
    if name in known:
        return name
    relays = providers.relays()
    if name in relays:
        about = ", ".join(p for p in relays[name] if p not in relays)
        raise UnknownName(
            flag,
            text,
            f"{name} is a connector whose rows are about other providers; name those ({about})",
        )
    raise UnknownName(flag, text, f"unknown provider ({_closest(text, known)})")


def region(text: str, known: Iterable[str], flag: str = "--region") -> str:
    """A region as the provider names it, any case (`EastUS` -> `eastus`), checked against
    the regions the warehouse holds (`known`)."""
    by_lower = {r.lower(): r for r in known}
    name = by_lower.get(text.strip().lower())
    if name is None:
        raise UnknownName(flag, text, f"no current offer in that region ({_closest(text, by_lower.values())})")
    return name


def pricing_model(text: str, flag: str = "--pricing") -> str:
    word = _SEPARATORS.sub("", text.strip().lower())
    by_word = {_SEPARATORS.sub("", m): m for m in PRICING_MODELS} | PRICING_ALIASES
    if word in by_word:
        return by_word[word]
    raise UnknownName(
        flag,
        text,
        f"unknown pricing model (expected {', '.join(PRICING_MODELS)}; "
        "any case, with hyphens or spaces; also ondemand, preemptible, interruptible, 1y, 3y, "
        "sp1y, sp3y, flex-start)",
    )


def precision(text: str, flag: str = "--precision") -> tuple[str, str | None]:
    """(the dim_gpus peak column to use, the alias typed or None)."""
    word = text.strip().lower()
    if word in PRECISIONS:
        return word, None
    if word in PRECISION_ALIASES:
        return PRECISION_ALIASES[word], word
    raise UnknownName(
        flag, text, f"expected one of {', '.join(PRECISIONS)} (or fp16, read as bf16)"
    )


PRECISION_NOTE = "fp16 = bf16 peak (dense FP16 and BF16 tensor rates are equal on these parts)"


def count(text: str | float, flag: str = "value") -> float:
    """'70B' -> 7e10, '2T' -> 2e12, '7e9' -> 7e9, '2_000' -> 2000.0. The sign is kept, so
    the formula that takes the number says what range it needs."""
    if isinstance(text, int | float):
        return float(text)
    found = _COUNT.match(text)
    if not found:
        raise UnknownName(flag, text, "not a number (e.g. 70e9, 70B, 2T, 1.5M, 2K)")
    number = float(found.group(1).replace("_", "").replace(",", ""))
    return number * SUFFIXES.get(found.group(2).upper(), 1.0)
