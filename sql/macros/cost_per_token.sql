-- cost_per_token(mfu, params_b, inference_utilization, precision): cost per token, the one
-- definition (mart_cost_per_token is this macro for a 1B-parameter model at the default
-- assumptions). Per current offer x pricing model: USD per 1M training
-- tokens (6 * N * D FLOPs at `mfu` of peak) and per 1M inference tokens (2 * N FLOPs per
-- token at `inference_utilization` of peak) for a model of `params_b` billion parameters.
-- `precision` picks the dense peak column of dim_gpu_variants (the offer's own form factor:
-- H100 PCIe is costed at its PCIe peak): fp32 | tf32 | bf16 | fp8.
-- The FLOPs and bytes per parameter are seed_conventions' (6 and 2 FLOPs; 16 bytes to
-- train, 2 bytes + 20% headroom to serve), the constants models/ reads too; the arithmetic
-- matches models/training.py and models/inference.py operation for operation (a parity
-- test checks it). Memory fit: training_memory_gib = params x 16 bytes (BF16 weights
-- and gradients + FP32 Adam states; activations on top), serving_memory_gib = params x 2
-- bytes x 1.2 (KV-cache headroom, assumed); min_gpus_* = the fewest GPUs of the offer's
-- memory that hold it; fits_*_on_instance = the offer's instance has that many. Rank with
-- them: a 70B model does not train or serve on one 24 GB GPU.
--   select * from cost_per_token(mfu := 0.4, params_b := 7) order by usd_per_1m_training_tokens;
-- No column of this body or of the views it reads may be named like a parameter: DuckDB
-- (2.0) substitutes the argument for such a name, or refuses the macro. Hence the
-- *_assumed columns, and offers read from int_offers_usable, not mart_cost_per_token.
CREATE OR REPLACE MACRO cost_per_token(
    mfu := 0.45, params_b := 70, inference_utilization := 0.3, precision := 'bf16'
) AS TABLE
with assumptions as (
    select
        case
            when mfu::double > 0 and mfu::double <= 1 then mfu::double
            else error('cost_per_token: mfu must be in (0, 1], got ' || mfu::varchar)
        end as mfu_assumed,
        case
            when params_b::double > 0 then params_b::double * 1e9
            else error('cost_per_token: params_b must be > 0, got ' || params_b::varchar)
        end as params_assumed,
        case
            when inference_utilization::double > 0 and inference_utilization::double <= 1
                then inference_utilization::double
            else error('cost_per_token: inference_utilization must be in (0, 1], got '
                       || inference_utilization::varchar)
        end as utilization_assumed,
        case
            when lower(precision) in ('fp32', 'tf32', 'bf16', 'fp8') then lower(precision)
            else error('cost_per_token: precision must be fp32, tf32, bf16 or fp8, got '
                       || precision::varchar)
        end as precision_assumed,
        1e6::double as tokens_assumed,
        1073741824.0::double as bytes_per_gib,
        c.training_flops_per_param_per_token as training_flops_per_param,
        c.inference_flops_per_param_per_token as inference_flops_per_param,
        c.training_bytes_per_param as training_bytes,
        c.serving_bytes_per_param as serving_bytes,
        c.serving_headroom as serving_headroom_share
    from seed_conventions c
),

offers as (
    select
        provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
        pricing_model, pricing_detail, price_usd_per_gpu_hour, provenance, effective_at,
        fetched_at, load_id
    from int_offers_usable  -- verified, whole machines (int_offers_current)
),

offers_with_peak as (
    select
        o.*, a.*,
        case a.precision_assumed
            when 'fp32' then g.fp32_tflops
            when 'tf32' then g.tf32_tflops
            when 'bf16' then g.bf16_tflops
            when 'fp8' then g.fp8_tflops
        end as peak_tflops
    from offers o
    left join dim_gpu_variants g using (gpu_name, gpu_memory_gib, gpu_variant)
    cross join assumptions a
),

costed as (
    select
        *,
        training_flops_per_param * params_assumed * tokens_assumed
            as training_flops_per_1m_tokens,
        training_flops_per_param * params_assumed * tokens_assumed
            / (mfu_assumed * (peak_tflops * 1e12) * 3600.0) as training_gpu_hours_per_1m_tokens,
        inference_flops_per_param * params_assumed * tokens_assumed
            as inference_flops_per_1m_tokens,
        inference_flops_per_param * params_assumed * tokens_assumed
            / (utilization_assumed * (peak_tflops * 1e12)) / 3600.0
            as inference_gpu_hours_per_1m_tokens,
        params_assumed * training_bytes / bytes_per_gib as training_memory_gib,
        params_assumed * serving_bytes * (1 + serving_headroom_share) / bytes_per_gib
            as serving_memory_gib
    from offers_with_peak
),

fitted as (
    select
        *,
        greatest(1, ceil(training_memory_gib / gpu_memory_gib)) as min_gpus_training,
        greatest(1, ceil(serving_memory_gib / gpu_memory_gib)) as min_gpus_serving
    from costed
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
    pricing_model, pricing_detail, price_usd_per_gpu_hour,
    params_assumed / 1e9 as params_b,
    precision_assumed as precision,
    peak_tflops,
    mfu_assumed as mfu,
    utilization_assumed as inference_utilization,
    training_flops_per_1m_tokens,
    training_gpu_hours_per_1m_tokens,
    training_gpu_hours_per_1m_tokens * price_usd_per_gpu_hour as usd_per_1m_training_tokens,
    inference_flops_per_1m_tokens,
    inference_gpu_hours_per_1m_tokens,
    inference_gpu_hours_per_1m_tokens * price_usd_per_gpu_hour as usd_per_1m_inference_tokens,
    training_memory_gib, min_gpus_training,
    min_gpus_training <= gpu_count as fits_training_on_instance,
    serving_memory_gib, min_gpus_serving,
    min_gpus_serving <= gpu_count as fits_serving_on_instance,
    provenance, effective_at, fetched_at, load_id
from fitted
