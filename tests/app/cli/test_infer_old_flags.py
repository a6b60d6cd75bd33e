"""`estimate infer`'s old flags keep working for one release, read as the roofline's inputs
with one warning line each: `--tokens-per-request` (prompt + output tokens) and
`--utilization` (the share of peak FLOPs reached, now `--compute-share`)."""

from __future__ import annotations

import json

from tests._cli import cli

ASK = ("estimate", "infer", "--params", "175e9", "--requests", "1e6", "--gpu", "A100",
       "--memory", "40", "--json")  # fmt: skip


def test_the_old_flags_answer_as_the_new_ones(demo_warehouse):
    old = cli(*ASK, "--tokens-per-request", "2048", "--utilization", "0.3",
              "--warehouse", demo_warehouse)  # fmt: skip
    new = cli(*ASK, "--prompt-tokens", "1792", "--output-tokens", "256",
              "--compute-share", "0.3", "--warehouse", demo_warehouse)  # fmt: skip
    assert old.exit_code == new.exit_code == 0, old.stderr
    assert json.loads(old.stdout) == json.loads(new.stdout)
    doc = json.loads(old.stdout)
    assert doc["cost_per_1k_tokens_usd"] == doc["cost_per_1m_tokens_usd"] / 1000
    warnings = old.stderr.splitlines()
    assert any("--tokens-per-request is an old name" in w for w in warnings)
    assert any("--utilization is an old name: read as --compute-share 0.3" in w for w in warnings)


def test_a_request_no_longer_than_its_output_is_one_error(demo_warehouse):
    result = cli(*ASK, "--tokens-per-request", "100", "--warehouse", demo_warehouse)
    assert result.exit_code == 2
    assert "--tokens-per-request: 100 must exceed --output-tokens (256)" in result.stderr
