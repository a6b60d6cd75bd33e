"""Input checks shared by the cost formulas.

Every check raises ``ValueError`` with one line naming the input and its value, e.g.
``mfu must be in (0, 1], got 1.5``. NaN and infinities are rejected everywhere: a cost
formula fed NaN would otherwise return NaN silently.
"""

from __future__ import annotations

import math


def _number(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite, got {value!r}")
    return float(value)


def positive(name: str, value: float) -> float:
    """``value > 0``."""
    number = _number(name, value)
    if number <= 0:
        raise ValueError(f"{name} must be > 0, got {value!r}")
    return number


def non_negative(name: str, value: float) -> float:
    """``value >= 0``."""
    number = _number(name, value)
    if number < 0:
        raise ValueError(f"{name} must be >= 0, got {value!r}")
    return number


def fraction(name: str, value: float) -> float:
    """``0 < value <= 1``: utilisation, MFU, HFU."""
    number = _number(name, value)
    if not 0 < number <= 1:
        raise ValueError(f"{name} must be in (0, 1], got {value!r}")
    return number


def unit_interval(name: str, value: float) -> float:
    """``0 <= value <= 1``: overlap fractions, shares that may be zero."""
    number = _number(name, value)
    if not 0 <= number <= 1:
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return number


def count(name: str, value: float) -> int:
    """A whole number >= 1 (GPU counts). Accepts 8 and 8.0, rejects 8.5."""
    number = positive(name, value)
    if not number.is_integer():
        raise ValueError(f"{name} must be a whole number, got {value!r}")
    return int(number)
