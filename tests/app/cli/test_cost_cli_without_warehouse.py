"""`estimate` and `breakeven` with explicit rates on a fresh machine: no warehouse, GPU
specs from the bundled seed (sql/seeds/seed_gpu_specs.csv); without a rate, one line
saying to refresh or pass the rate."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gpu_pricing.cli import app

runner = CliRunner()


def cli(tmp_path, *args: str):
    missing = tmp_path / "fresh" / "gpu_pricing.duckdb"
    result = runner.invoke(app, [*args, "--warehouse", str(missing)], catch_exceptions=False)
    assert not missing.exists()  # nothing was created
    return result


def test_training_estimate_with_a_rate_needs_no_warehouse(tmp_path):
    result = cli(
        tmp_path,
        "estimate",
        "train",
        "--params",
        "70e9",
        "--tokens",
        "2e12",
        "--gpu",
        "H100",
        "--rate",
        "2",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    # the seed's H100 80 GB: 989 BF16 TFLOPS; 8.4e23 / (0.45 * 989e12 * 3600) = 524,286
    # GPU-hours * 2 USD = 1,048,571 USD
    assert doc["peak_tflops"] == 989
    assert doc["gpu_hours"] == pytest.approx(524_286, rel=1e-5)
    assert doc["cost_usd"] == pytest.approx(1_048_571, rel=1e-5)
    assert doc["rate_source"] == "--rate"


def test_inference_estimate_with_a_rate_needs_no_warehouse(tmp_path):
    result = cli(
        tmp_path, "estimate", "infer", "--params", "7e9", "--requests", "1e6", "--gpu", "A100",
        "--memory", "40", "--rate", "1", "--prompt-tokens", "0", "--output-tokens", "1000",
        "--kv-bytes-per-token", "0", "--json",
    )  # fmt: skip
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    # the seed's A100 40 GB: 1,555 GB/s, 312 BF16 TFLOPS. A decode step reads 14e9 bytes of
    # weights at 0.61 x 1.555e12 B/s = 14.759 ms (compute: 1.4e10 / (0.6 x 312e12) =
    # 0.075 ms); 1,000 steps per request x 1e6 requests = 1.4759e7 GPU-seconds, 4,100 USD
    step = 14e9 / (0.61 * 1.555e12)
    assert (doc["bound"], doc["gpus_per_replica"]) == ("memory", 1.0)
    assert doc["step_seconds"] == pytest.approx(step)
    assert doc["gpu_seconds"] == pytest.approx(1000 * step * 1e6)
    assert doc["cost_usd"] == pytest.approx(1000 * step * 1e6 / 3600)


def test_h200_serves_70b_cheaper_than_h100_by_its_bandwidth_ratio_when_memory_bound(tmp_path):
    def serve(gpu: str) -> dict:
        result = cli(
            tmp_path, "estimate", "infer", "--params", "70B", "--requests", "1M", "--gpu", gpu,
            "--rate", "3", "--json",
        )  # fmt: skip
        assert result.exit_code == 0, result.stderr
        return json.loads(result.stdout)

    h100, h200 = serve("H100"), serve("H200")
    # both memory-bound on 2-GPU replicas over NVLink at the same rate: an H200 (4.8 TB/s)
    # decodes 4.8 / 3.35 = 1.43x the tokens of an H100 (3.35 TB/s) and costs 1.43x less
    assert h100["bound"] == h200["bound"] == "memory"
    assert h100["gpus_per_replica"] == h200["gpus_per_replica"] == 2
    ratio = h200["output_tokens_per_second_per_gpu"] / h100["output_tokens_per_second_per_gpu"]
    assert ratio == pytest.approx(4.8 / 3.35, rel=1e-9)
    cheaper = h100["usd_per_1m_output_tokens"] / h200["usd_per_1m_output_tokens"]
    assert cheaper == pytest.approx(4.8 / 3.35, rel=1e-9)


def test_breakeven_with_rates_needs_no_warehouse(tmp_path):
    onprem = cli(tmp_path, "breakeven", "onprem", "--gpu", "H100", "--rate", "4", "--json")
    assert onprem.exit_code == 0, onprem.stderr
    # the seed's reference capex, the host and operations: 37,500 USD / (4 USD - 0.1989 power
    # - 3,750 / 8,760 operations) = 11,118 GPU-hours
    assert json.loads(onprem.stdout)["break_even_gpu_hours"] == pytest.approx(
        37_500 / (4 - 0.1989 - 3750 / 8760)
    )
    spot = cli(
        tmp_path,
        "breakeven",
        "spot",
        "--gpu",
        "H100",
        "--spot-rate",
        "1.5",
        "--on-demand-rate",
        "4",
        "--json",
    )
    assert spot.exit_code == 0, spot.stderr
    doc = json.loads(spot.stdout)
    assert doc["break_even_preemption_rate_per_hour"] == pytest.approx(1.2125)
    assert doc["same_instance_pairs"] == []


@pytest.mark.parametrize(
    ("args", "hint"),
    [
        (
            ["estimate", "train", "--params", "70e9", "--tokens", "2e12", "--gpu", "H100"],
            "or pass --rate",
        ),
        (["breakeven", "onprem", "--gpu", "H100"], "or pass --rate"),
        (["breakeven", "spot", "--gpu", "H100"], "or pass --spot-rate and --on-demand-rate"),
    ],
)
def test_without_a_rate_or_a_warehouse_the_message_says_refresh_or_pass_the_rate(
    tmp_path, args, hint
):
    result = cli(tmp_path, *args, "--json")
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1
    assert "does not exist" in lines[0] and "gpu-pricing refresh" in lines[0] and hint in lines[0]


def test_an_unknown_gpu_is_still_an_input_error_without_a_warehouse(tmp_path):
    result = cli(
        tmp_path,
        "estimate",
        "train",
        "--params",
        "7e9",
        "--tokens",
        "1e9",
        "--gpu",
        "H900",
        "--rate",
        "2",
    )
    assert result.exit_code == 2 and "unknown GPU" in result.stderr
