-- Cost per token of every current GPU offer x pricing model, for a model of 1B parameters,
-- at stated assumptions (the columns mfu, inference_utilization, precision). Scale by the
-- parameter count in billions for another model size, or use the table macro
-- cost_per_token(mfu := ..., params_b := ...) (sql/macros/cost_per_token.sql).
--
-- Training: 6 * N * D FLOPs (models/training.py); GPU-hours = FLOPs / (MFU * peak * 3600).
-- Inference: 2 * N FLOPs per token (models/inference.py), at a utilisation of peak.
-- Peak = dense BF16 TFLOPS of the offer's own form factor (dim_gpu_variants: H100 PCIe
-- 756, SXM 989); GPUs without BF16 (T4, V100, ...) keep their row
-- with null costs rather than a made-up peak.
-- Memory fit (models/memory_fit.py): training needs 16 bytes per parameter (BF16 weights
-- and gradients + FP32 Adam states, ZeRO paper section 3.1; activations on top), serving
-- 2 bytes per parameter of BF16 weights + 20% KV-cache headroom (assumed). The
-- max_params_b_* columns say the largest model (billions of parameters) one GPU, or the
-- whole instance, holds by that rule: a cost per token is only usable for models that fit.
with assumptions as (
    select
        'bf16' as precision,
        0.45::double as mfu,                      -- training MFU (PaLM-class large runs)
        0.3::double as inference_utilization,    -- share of peak reached while serving
        1e9::double as params,                   -- 1B parameters
        1e6::double as tokens,                   -- per 1M tokens
        16.0::double as training_bytes_per_param,
        2.0::double as serving_bytes_per_param,
        0.2::double as serving_headroom,
        1073741824.0::double as bytes_per_gib
),

priced_offers as (
    select * from int_offers_usable  -- verified, whole machines (int_offers_current)
),

offers_with_peak as (
    select o.*, g.bf16_tflops as peak_tflops
    from priced_offers o
    left join dim_gpu_variants g using (gpu_name, gpu_memory_gib, gpu_variant)
),

training as (
    select
        o.*,
        a.precision, a.mfu, a.inference_utilization,
        6.0 * a.params * a.tokens as training_flops_per_1m_tokens_per_b_params,
        6.0 * a.params * a.tokens / (a.mfu * (o.peak_tflops * 1e12) * 3600.0)
            as training_gpu_hours_per_1m_tokens_per_b_params,
        2.0 * a.params * a.tokens as inference_flops_per_1m_tokens_per_b_params,
        2.0 * a.params * a.tokens / (a.inference_utilization * (o.peak_tflops * 1e12)) / 3600.0
            as inference_gpu_hours_per_1m_tokens_per_b_params,
        o.gpu_memory_gib * a.bytes_per_gib / a.training_bytes_per_param / 1e9
            as max_params_b_training_per_gpu,
        o.gpu_memory_gib * a.bytes_per_gib
            / (a.serving_bytes_per_param * (1 + a.serving_headroom)) / 1e9
            as max_params_b_serving_per_gpu
    from offers_with_peak o
    cross join assumptions a
),

costed as (
    select
        *,
        training_gpu_hours_per_1m_tokens_per_b_params * price_usd_per_gpu_hour
            as usd_per_1m_training_tokens_per_b_params,
        inference_gpu_hours_per_1m_tokens_per_b_params * price_usd_per_gpu_hour
            as usd_per_1m_inference_tokens_per_b_params
    from training
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
    pricing_model, pricing_detail, price_usd_per_gpu_hour,
    precision, peak_tflops, mfu, inference_utilization,
    training_flops_per_1m_tokens_per_b_params, training_gpu_hours_per_1m_tokens_per_b_params,
    usd_per_1m_training_tokens_per_b_params,
    inference_flops_per_1m_tokens_per_b_params, inference_gpu_hours_per_1m_tokens_per_b_params,
    usd_per_1m_inference_tokens_per_b_params,
    max_params_b_training_per_gpu, max_params_b_training_per_gpu * gpu_count
        as max_params_b_training_per_instance,
    max_params_b_serving_per_gpu, max_params_b_serving_per_gpu * gpu_count
        as max_params_b_serving_per_instance,
    provenance, effective_at, fetched_at, load_id
from costed
