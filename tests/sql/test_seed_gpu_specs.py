import csv
import datetime
from pathlib import Path

import pytest

SEED = Path(__file__).resolve().parents[2] / "sql" / "seeds" / "seed_gpu_specs.csv"
COLUMNS = [
    "gpu_name",
    "gpu_memory_gib",
    "vendor",
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "memory_bandwidth_gbps",
    "interconnect_gbps",
    "tdp_watts",
    "capex_usd",
    "capex_as_of",
    "capex_source",
    "spec_source",
]
NUMERIC = [
    "fp32_tflops",
    "tf32_tflops",
    "bf16_tflops",
    "fp8_tflops",
    "memory_bandwidth_gbps",
    "interconnect_gbps",
    "tdp_watts",
    "capex_usd",
]


@pytest.fixture(scope="module")
def header_and_rows():
    with SEED.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        return reader.fieldnames, list(reader)


@pytest.fixture(scope="module")
def by_key(header_and_rows):
    _, rows = header_and_rows
    return {(row["gpu_name"], int(row["gpu_memory_gib"])): row for row in rows}


def test_seed_has_exactly_the_contract_columns(header_and_rows):
    header, _ = header_and_rows
    assert header == COLUMNS


def test_seed_has_one_row_per_gpu_name_and_memory(header_and_rows):
    _, rows = header_and_rows
    keys = [(row["gpu_name"], row["gpu_memory_gib"]) for row in rows]
    assert len(keys) == len(set(keys))


def test_every_numeric_column_parses_and_is_positive_or_empty(header_and_rows):
    _, rows = header_and_rows
    for row in rows:
        assert int(row["gpu_memory_gib"]) > 0, row["gpu_name"]
        for column in NUMERIC:
            if row[column] != "":
                assert float(row[column]) > 0, (row["gpu_name"], column)


def test_gpu_names_follow_the_vocabulary(header_and_rows):
    _, rows = header_and_rows
    for row in rows:
        assert row["gpu_name"] == row["gpu_name"].upper().strip(), row["gpu_name"]
        assert not row["gpu_name"].startswith(("NVIDIA", "AMD")), row["gpu_name"]
        assert row["vendor"] in {"nvidia", "amd", "aws"}, row["gpu_name"]


def test_every_row_names_its_spec_source_and_every_capex_its_date_and_source(header_and_rows):
    _, rows = header_and_rows
    for row in rows:
        assert row["spec_source"], row["gpu_name"]
        if row["capex_usd"]:
            datetime.date.fromisoformat(row["capex_as_of"])
            assert row["capex_source"], row["gpu_name"]
        else:
            assert not row["capex_as_of"] and not row["capex_source"], row["gpu_name"]


def test_h100_80_is_989_dense_bf16_tflops(by_key):
    assert float(by_key[("H100", 80)]["bf16_tflops"]) == 989


@pytest.mark.parametrize("memory_gib", [40, 80])
def test_a100_is_312_dense_bf16_tflops(by_key, memory_gib):
    assert float(by_key[("A100", memory_gib)]["bf16_tflops"]) == 312


def test_h100_reference_capex_is_30000_usd(by_key):
    assert float(by_key[("H100", 80)]["capex_usd"]) == 30000


def test_dense_tensor_rates_double_per_halving_of_precision_on_hopper(by_key):
    # H100 SXM: tf32 494.5 * 2 = 989 bf16; 989 * 2 = 1978 ~ 1979 fp8 (datasheet rounding)
    h100 = by_key[("H100", 80)]
    assert float(h100["tf32_tflops"]) * 2 == pytest.approx(float(h100["bf16_tflops"]))
    assert float(h100["bf16_tflops"]) * 2 == pytest.approx(float(h100["fp8_tflops"]), abs=1)
