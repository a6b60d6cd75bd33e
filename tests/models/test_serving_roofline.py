"""The serving roofline (models.serving) against measured decode steps and worked numbers,
the arithmetic written out."""

from __future__ import annotations

import polars as pl
import pytest

from models import serving
from models.conventions import DECODE_BANDWIDTH_SHARE, DECODE_COMPUTE_SHARE

# H100 SXM: 3.35 TB/s, 989 dense BF16 TFLOPS (sql/seeds/seed_gpu_specs.csv)
H100 = {"peak_tflops": 989.0, "memory_bandwidth_gbps": 3350.0}
H200 = {"peak_tflops": 989.0, "memory_bandwidth_gbps": 4800.0}
# the measured 7B-shaped decoder: 32 layers, d 4096, MLP 11008, 6.48B parameters,
# 12.95 GB of BF16 weights; one new token per sequence per step (no prior context)
SEVEN_B = 6.48e9
SEVEN_B_BYTES_PER_PARAM = 12.95e9 / 6.48e9


def seven_b(batch: int, **kw) -> dict:
    return serving.decode(
        SEVEN_B,
        **H100,
        batch=batch,
        context_tokens=1,
        weight_bytes_per_param=SEVEN_B_BYTES_PER_PARAM,
        kv_bytes_per_token=2 * 32 * 4096 * 2,
        **kw,
    )


def test_the_shares_of_peak_are_the_measured_h100_figures():
    # 2.05 TB/s achieved of 3.35 at batch 1; ~60% of 989 TFLOPS at batch 512
    assert DECODE_BANDWIDTH_SHARE == 0.61 and DECODE_COMPUTE_SHARE == 0.6


@pytest.mark.parametrize(
    ("batch", "measured_ms", "measured_tps"),
    [(1, 6.32, 158), (256, 6.94, 36_873), (512, 11.16, 45_882)],
)
def test_measured_h100_decode_steps_are_reproduced_within_25_percent(
    batch, measured_ms, measured_tps
):
    step = seven_b(batch)
    # batch 1: (12.95e9 + 1 * 524,288) bytes / (3.35e12 * 0.61) = 6.337 ms -> 158 tokens/s
    # batch 256: memory 6.40 ms (the KV of 256 tokens adds 0.13 GB) > compute
    #   256 * 2 * 6.48e9 / (989e12 * 0.6) = 5.59 ms -> 40,000 tokens/s
    # batch 512: compute 11.18 ms > memory 6.47 ms -> 45,800 tokens/s
    assert step["step_seconds"] * 1e3 == pytest.approx(measured_ms, rel=0.25)
    assert step["output_tokens_per_second_per_gpu"] == pytest.approx(measured_tps, rel=0.25)


def test_batch_1_is_memory_bound_and_batch_512_compute_bound():
    one, many = seven_b(1), seven_b(512)
    assert one["bound"] == "memory" and many["bound"] == "compute"
    assert one["step_seconds"] * 1e3 == pytest.approx(12.95e9 / (3.35e12 * 0.61) * 1e3, rel=1e-3)
    assert many["step_seconds"] == pytest.approx(512 * 2 * 6.48e9 / (989e12 * 0.6), rel=1e-9)


def test_the_old_flat_model_was_145x_too_optimistic_at_batch_1():
    # 2N FLOPs at 30% of peak: 0.3 * 989e12 / (2 * 6.48e9) = 22,894 tokens/s at every batch
    flat = 0.3 * 989e12 / (2 * SEVEN_B)
    assert flat / seven_b(1)["output_tokens_per_second_per_gpu"] == pytest.approx(145, rel=0.02)


def test_70b_bf16_on_h100_at_batch_1_is_memory_bound_at_24_tokens_per_second_per_gpu():
    # 3.35e12 B/s / (70e9 * 2 bytes) = 23.9 tokens/s per GPU-equivalent at the full bandwidth;
    # the 140 GB do not fit one 80 GB H100, so a replica is 2 GPUs (tensor parallel)
    ideal = serving.decode(
        70e9, **H100, tp=2, bandwidth_share=1.0, compute_share=1.0, kv_bytes_per_token=0
    )
    assert ideal["bound"] == "memory"
    assert ideal["output_tokens_per_second_per_gpu"] / ideal["tp_efficiency"] == pytest.approx(
        3.35e12 / 1.4e11, rel=1e-9
    )
    assert ideal["output_tokens_per_second_per_gpu"] / ideal["tp_efficiency"] == pytest.approx(
        23.9, abs=0.05
    )
    # with tensor parallelism stated: 2 GPUs over NVLink at 0.9 -> 21.5 per GPU
    assert ideal["tp_efficiency"] == 0.9
    assert ideal["output_tokens_per_second_per_gpu"] == pytest.approx(21.54, abs=0.01)
    # the compute bound at batch 1 is ~40x further: 989e12 / 1.4e11 = 7,064 tokens/s per GPU
    assert ideal["decode_compute_seconds"] * 295 < ideal["decode_memory_seconds"]


def test_70b_at_a_large_batch_is_compute_bound():
    step = serving.decode(70e9, **H100, tp=2, batch=1024, kv_bytes_per_token=0)
    # compute 1024 * 1.4e11 / (2 * 989e12 * 0.6) = 120.8 ms > memory 1.4e11 / (2 * 3.35e12
    # * 0.61) = 34.3 ms
    assert step["bound"] == "compute"
    assert step["decode_compute_seconds"] == pytest.approx(1024 * 1.4e11 / (2 * 989e12 * 0.6))


def test_h200_beats_h100_per_token_by_its_bandwidth_ratio_when_memory_bound():
    h100 = serving.decode(70e9, **H100, tp=2, rate_usd_per_gpu_hour=4.0, kv_bytes_per_token=0)
    h200 = serving.decode(70e9, **H200, tp=2, rate_usd_per_gpu_hour=4.0, kv_bytes_per_token=0)
    ratio = h200["output_tokens_per_second_per_gpu"] / h100["output_tokens_per_second_per_gpu"]
    assert ratio == pytest.approx(4.8 / 3.35, rel=1e-9)  # 1.433
    cost_ratio = h100["usd_per_1m_output_tokens"] / h200["usd_per_1m_output_tokens"]
    assert cost_ratio == pytest.approx(4.8 / 3.35, rel=1e-9)


def test_the_kv_cache_of_the_batch_and_context_is_read_every_step():
    short = seven_b(64)
    long = serving.decode(
        SEVEN_B,
        **H100,
        batch=64,
        context_tokens=4096,
        weight_bytes_per_param=SEVEN_B_BYTES_PER_PARAM,
        kv_bytes_per_token=524_288,
    )
    # 64 * 4096 * 524,288 B = 137.4 GB of KV cache on top of 12.95 GB of weights
    assert long["kv_cache_bytes"] == 64 * 4096 * 524_288
    assert long["step_seconds"] == pytest.approx(
        (12.95e9 + 137.438953472e9) / (3.35e12 * 0.61), rel=1e-9
    )
    assert long["step_seconds"] > 10 * short["step_seconds"]


def test_cost_per_1m_tokens_output_from_the_step_and_input_from_prefill():
    step = seven_b(1, rate_usd_per_gpu_hour=3.6)
    # 3.6 USD/h = 0.001 USD/s; one token per 6.337 ms: 6.337 us of GPU time per... x 1e6
    assert step["usd_per_1m_output_tokens"] == pytest.approx(
        0.001 * step["step_seconds"] * 1e6, rel=1e-9
    )
    # prefill: 2 * 6.48e9 / (989e12 * 0.6) = 21.84 us per token -> 0.0218 USD per 1M
    assert step["usd_per_1m_input_tokens"] == pytest.approx(
        0.001 * 2 * 6.48e9 / (989e12 * 0.6) * 1e6, rel=1e-9
    )


def test_the_default_kv_cache_follows_the_7b_shape():
    # 12 * L * (128 L)**2 = 6.44e9 at L = 32: 2 * 32 * 4096 * 2 bytes = 524,288 per token
    step = serving.decode(12 * 32 * 4096**2, **H100)
    assert step["kv_bytes_per_token"] == pytest.approx(524_288)
    assert step["weight_bytes_per_param"] == 2.0  # bf16
    assert serving.decode(7e9, **H100, precision="fp8")["weight_bytes_per_param"] == 1.0


def test_tensor_parallel_efficiency_per_doubling_depends_on_the_link():
    assert serving.decode(70e9, **H100, tp=8)["tp_efficiency"] == pytest.approx(0.9**3)
    assert serving.decode(70e9, **H100, tp=4, has_link=False)["tp_efficiency"] == pytest.approx(
        0.7**2
    )
    assert serving.decode(7e9, **H100, tp=1)["tp_efficiency"] == 1.0


def test_the_fewest_gpus_hold_weights_and_kv_at_the_usable_share():
    # 80 GiB * 0.9 = 77.3 GB usable: 70B x 2 bytes = 140 GB -> 2 GPUs; 30B (60 GB) -> 1
    h100 = {**H100, "gpu_memory_gib": 80.0, "kv_bytes_per_token": 0}
    assert serving.decode(70e9, **h100)["tp"] == 2.0
    assert serving.decode(30e9, **h100)["tp"] == 1.0
    # the KV cache of the batch at its longest counts: 64 x 4096 tokens x 327,680 bytes
    # (Llama 3 70B's GQA) = 85.9 GB more -> 226 GB -> 4 GPUs
    long = serving.decode(
        70e9, **H100, gpu_memory_gib=80.0, batch=64, context_tokens=2048, longest_tokens=4096,
        kv_bytes_per_token=327_680,
    )
    assert (long["min_tp"], long["tp"]) == (4.0, 4.0)
    # a larger tp may be asked for; min_tp still says the fewest
    wide = serving.decode(70e9, **h100, tp=8)
    assert (wide["min_tp"], wide["tp"]) == (2.0, 8.0)


def test_a_frame_of_cases_keeps_its_rows_and_order():
    cases = pl.DataFrame(
        {
            "name": ["a", "b", "c"],
            "params": [7e9, 70e9, 7e9],
            "precision": ["bf16", "bf16", "fp8"],
            "weight_bytes_per_param": [None, None, None],
            "kv_bytes_per_token": [None, 0.0, None],
            "batch": [1.0, 1.0, 512.0],
            "context_tokens": [0.0, 0.0, 0.0],
            "longest_tokens": [None, None, None],
            "peak_tflops": [989.0, 989.0, 1979.0],
            "memory_bandwidth_gbps": [3350.0, 4800.0, 3350.0],
            "gpu_memory_gib": [80.0, 141.0, 80.0],
            "tp": [None, None, None],
            "has_link": [True, True, True],
            "bandwidth_share": [0.61, 0.61, 0.61],
            "compute_share": [0.6, 0.6, 0.6],
            "rate_usd_per_gpu_hour": [2.0, None, 2.0],
            "prompt_tokens": [None, None, 1024.0],
            "output_tokens": [None, None, 256.0],
        }
    )
    out = serving.roofline(cases)
    assert out["name"].to_list() == ["a", "b", "c"]
    assert out["bound"].to_list() == ["memory", "memory", "compute"]
    # 140 GB > 0.9 x 141 GiB; the KV cache of 512 requests of 1,280 tokens (363 GB) needs 8
    assert out["tp"].to_list() == [1.0, 2.0, 8.0]
    assert out["usd_per_1m_output_tokens"][1] is None  # no rate, no cost
    # a request of 1024 + 256 tokens on the replica's 8 GPUs: prefill, then 256 steps
    # shared by the batch of 512
    c = out.row(2, named=True)
    assert c["gpu_seconds_per_request"] == pytest.approx(
        8 * (1024 * c["prefill_seconds_per_token"] + 256 * c["step_seconds"] / 512)
    )
    assert c["usd_per_request"] == pytest.approx(2.0 * c["gpu_seconds_per_request"] / 3600)
    assert out["gpu_seconds_per_request"][0] is None  # no request given
    with pytest.raises(ValueError, match="input columns missing: batch"):
        serving.roofline(cases.drop("batch"))


@pytest.mark.parametrize(
    ("kw", "named"),
    [
        ({"batch": 0}, "batch"),
        ({"bandwidth_share": 1.5}, "bandwidth_share"),
        ({"tp": 0}, "tp"),
        ({"precision": "int4"}, "precision"),
    ],
)
def test_bad_input_names_the_input(kw, named):
    with pytest.raises(ValueError, match=named):
        serving.decode(7e9, **H100, **kw)
