"""The constants the formulas share are defined once: the SQL models and models/ read the
same seed, and no SQL model or Python formula spells them out again."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb

from models import conventions

ROOT = Path(__file__).resolve().parents[2]


def test_the_warehouse_and_models_read_the_same_conventions(demo_warehouse):
    with duckdb.connect(str(demo_warehouse), read_only=True) as con:
        cursor = con.execute("select * from seed_conventions")
        names = [d[0] for d in cursor.description]
        rows = cursor.fetchall()
    assert len(rows) == 1
    assert dict(zip(names, rows[0], strict=True)) == conventions.CONVENTIONS


def test_no_sql_model_spells_out_the_hours_of_a_month():
    # 720 may appear in comments (the value, explained), never in a model's SQL
    offenders = []
    for path in sorted((ROOT / "sql").rglob("*.sql")):
        code = re.sub(r"--[^\n]*", "", path.read_text())
        if re.search(r"\b(720|730)(\.0)?\b", code):
            offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []


def test_no_python_formula_defines_its_own_convention():
    pattern = re.compile(
        r"^(HOURS_PER_MONTH|TRAINING_BYTES_PER_PARAM|SERVING_BYTES_PER_PARAM|SERVING_HEADROOM"
        r"|DECODE_BANDWIDTH_SHARE|DECODE_COMPUTE_SHARE|SERVING_MEMORY_SHARE"
        r"|TENSOR_PARALLEL_EFFICIENCY_NVLINK|TENSOR_PARALLEL_EFFICIENCY_PCIE|POWER_USD_PER_KWH"
        r"|PUE|HOST_WATTS_PER_GPU|HOST_CAPEX_SHARE|OPS_SHARE_OF_CAPEX_PER_YEAR)"
        r"\s*=\s*[0-9]",
        re.M,
    )
    offenders = [
        str(p.relative_to(ROOT))
        for folder in ("models", "gpu_pricing", "flows")
        for p in sorted((ROOT / folder).rglob("*.py"))
        if pattern.search(p.read_text())
    ]
    assert offenders == []
