import pytest

from models import inference


def test_inference_is_two_flops_per_param_per_token():
    # 2 * 175e9 = 3.5e11
    assert inference.inference_flops_per_token(175e9) == pytest.approx(3.5e11)


def test_175b_serving_a_million_2k_token_requests_on_a100_at_30_percent():
    result = inference.estimate_inference(
        params=175e9,
        tokens_per_request=2048,
        requests=1e6,
        peak_tflops=312,
        utilization=0.3,
        rate_usd_per_gpu_hour=2.0,
    )
    # tokens = 2048 * 1e6 = 2.048e9; flops = 2 * 175e9 * 2.048e9 = 7.168e20
    assert result["tokens"] == pytest.approx(2.048e9)
    assert result["flops"] == pytest.approx(7.168e20)
    # 7.168e20 / (0.3 * 312e12) = 7.168e20 / 9.36e13 = 7,658,119.66 GPU-seconds
    assert result["gpu_seconds"] == pytest.approx(7_658_119.66, rel=1e-8)
    # / 3600 = 2127.2555 GPU-hours; * 2 USD = 4254.511 USD
    assert result["cost_usd"] == pytest.approx(4254.511, rel=1e-6)
    # 4254.511 / 1e6 requests = 0.004254511 USD per request
    assert result["cost_per_request_usd"] == pytest.approx(0.004254511, rel=1e-6)
    # 4254.511 / 2.048e9 * 1e3 = 0.0020774 USD per 1K tokens
    assert result["cost_per_1k_tokens_usd"] == pytest.approx(0.00207740, rel=1e-5)


def test_estimate_inference_echoes_every_input():
    result = inference.estimate_inference(175e9, 2048, 1e6, 312, 0.3, 2.0)
    for key, value in {
        "params": 175e9,
        "tokens_per_request": 2048,
        "requests": 1e6,
        "peak_tflops": 312,
        "utilization": 0.3,
        "rate_usd_per_gpu_hour": 2.0,
    }.items():
        assert result[key] == value


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("params", -1.0),
        ("tokens_per_request", 0),
        ("requests", -5),
        ("peak_tflops", -312),
        ("utilization", 1.5),
        ("utilization", 0),
        ("rate_usd_per_gpu_hour", -2.0),
    ],
)
def test_invalid_inference_inputs_are_rejected_naming_the_input(name, value):
    args = {
        "params": 175e9,
        "tokens_per_request": 2048,
        "requests": 1e6,
        "peak_tflops": 312,
        "utilization": 0.3,
        "rate_usd_per_gpu_hour": 2.0,
    } | {name: value}
    with pytest.raises(ValueError, match=rf"^{name} must .*got {value!r}"):
        inference.estimate_inference(**args)
