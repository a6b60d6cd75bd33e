"""The training and serving planners: pure Polars over a frame of current offers and a
frame of GPU specs (no I/O; `gpu_pricing.api` reads the warehouse and calls these).

Training (`train_candidates`, `choose`). For every usable offer and GPU count the
candidate frame holds GPU-hours, wall-clock hours and total cost:

- One offer in one region is one cluster, of at most the offer's instance limit
  (`max_instances`, with `capacity_source` published | assumed | configured and
  `capacity_note`; models.capacity states the rule and the assumptions per provider class:
  a marketplace listing is one machine, single-GPU instances are not combined; an AWS
  Capacity Block holds up to 64 instances, published). A product with a longest run
  (`max_hours`: a Capacity Block lasts at most 182 days) keeps only the plans that end
  within it.
- GPU counts: powers of two, the offer's instance size times powers of two, and the whole
  limit (`max_instances * gpu_count`), within `min_gpus..max_gpus`, kept only when they are
  whole instances (a multiple of the offer's `gpu_count`) within the limit.
  Fractional-GPU instances (Azure NV6ads A10 = 1/6 GPU) are not training machines and are
  left out.
- MFU at that count from the efficiency curve (`DEFAULT_CURVES` per GPU family, or a
  file), linearly interpolated between its points and never extrapolated: a count outside
  the curve's range is not a candidate (`models.scaling.interpolate_mfu` does the same for
  one value).
- Memory: the model states must fit, `gpus * gpu_memory_gib * 2**30 >= params *
  bytes_per_param` (16 bytes per parameter by default: BF16 weights and gradients plus FP32
  master weights and two Adam moments, fully sharded as in ZeRO-3 / FSDP, Rajbhandari et al.
  2020); activations are not counted.
- `gpu_hours = flops / (mfu * peak_tflops * 1e12 * 3600)` (models.training),
  `wall_clock_hours = gpu_hours / gpus`.
- Spot: the job runs on `instances = gpus / gpu_count` machines and stops when any of them
  is reclaimed, so its preemption rate is `instances * p` with `p` per instance-hour (the
  offer's published interruption bucket as a rate, `dim_spot_interruption_buckets`; else the
  rate given). Wall clock and billed hours grow by `time_multiplier = (1 + o) / (1 -
  p_job * (c/2 + restart))` (models.breakeven); a candidate whose preemptions eat all the
  time is dropped. `expected_overhead_hours` is the wall-clock added by checkpoints and lost
  work, `expected_preemptions` the expected count over the run.
- Reserved (`reserved_1y`, `reserved_3y`): the rate is the effective hourly rate with any
  upfront payment amortised over the term. A commitment bills every hour of its term, used
  or not: with `reserved_billing = "term"` (the default) a run is billed whole terms per
  GPU (`ceil(wall_clock / term) * term` hours), so a 2-week run on a 1-year reservation
  pays for the year; `"used"` bills only the hours used, for a commitment whose remaining
  hours other work will fill. `min_term_hours` says which term applied.
- `cost_usd = gpus * billed_hours_per_gpu * rate_usd_per_gpu_hour`.

`choose` applies the deadline and budget, and returns the cheapest plan that meets them
(`chosen`), the fastest one (`fastest_within_budget`) and the Pareto frontier of cost vs
wall clock (sorted by cost, a plan stays only when it is faster than every cheaper plan:
a sort and a cumulative minimum). Nothing feasible raises `NoFeasiblePlan` with the closest
miss and the cheapest plan.

Serving (`serve_candidates`): see its docstring.

The modules, by role: `shared` (constants, `NoFeasiblePlan`, efficiency curves, usable
offers), `train` (`train_candidates`, `frontier`, `choose`) and `serve` (`serve_options`,
`serve_candidates`); every name is importable from here.
"""

# the planner's names, re-exported from its modules
# ruff: noqa: F401
from __future__ import annotations

from gpu_pricing.plan.serve import (
    BATCHES,
    DEFAULT_MIN_TOKENS_PER_SECOND_PER_USER,
    ROOFLINE_COLUMNS,
    SERVE_COLUMNS,
    serve_candidates,
    serve_options,
)
from gpu_pricing.plan.shared import (
    DEFAULT_BYTES_PER_PARAM,
    DEFAULT_CURVES,
    DEFAULT_MAX_GPUS,
    GIB,
    GPU_FAMILIES,
    OFFER_KEY,
    PLAN_COLUMNS,
    ROUNDING_SLACK,
    TERM_HOURS,
    NoFeasiblePlan,
    amount_label,
    default_curve,
    gpu_family,
    read_curve,
    spec_keys,
    usable_offers,
    with_mfu,
)
from gpu_pricing.plan.train import (
    Choice,
    SpotAssumptions,
    check_train_inputs,
    choose,
    frontier,
    train_candidates,
)
