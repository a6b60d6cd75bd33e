-- cost_per_token(mfu, params_b, precision, serving_batch, serving_context,
-- bandwidth_fraction, compute_fraction): cost per token, the one definition
-- (mart_cost_per_token is this macro for a 1B-parameter model at the default
-- assumptions). Per current usable offer x pricing model, for a model of `params_b`
-- billion parameters:
-- - training: USD per 1M training tokens, 6 * N * D FLOPs at `mfu` of peak;
-- - serving: on the serving roofline (the table macro serving_roofline, which holds its
--   formulas), one replica on the fewest power-of-two GPUs that hold the weights and the
--   KV cache (`gpus_per_replica`), decoding `serving_batch` sequences (default 1) with
--   `serving_context` tokens of KV cache each (default 1024): output tokens are costed per
--   decode step (bound by memory bandwidth or compute, `bound`), input (prompt) tokens by
--   compute-bound prefill; `bandwidth_fraction` and `compute_fraction` are the achievable
--   shares of peak bandwidth and FLOPs (null: seed_conventions' decode_bandwidth_share
--   0.61 and decode_compute_share 0.60, measured on an H100 with plain PyTorch).
-- `precision` picks the dense peak column of dim_gpu_variants (the offer's own form
-- factor: H100 PCIe is costed at its PCIe peak) and the bytes per weight: fp32 | tf32 |
-- bf16 | fp8. The FLOPs and bytes per parameter are seed_conventions' (6 FLOPs; 16 bytes
-- to train, 2 bytes + 20% headroom to serve), the constants models/ reads too. Memory
-- fit: training_memory_gib = params x 16 bytes (BF16 weights and gradients + FP32 Adam
-- states; activations on top), serving_memory_gib = params x 2 bytes x 1.2 (KV-cache
-- headroom, assumed); min_gpus_* = the fewest GPUs of the offer's memory that hold it;
-- fits_*_on_instance = the offer's instance has that many. Rank with them: a 70B model
-- does not train or serve on one 24 GB GPU.
--   select * from cost_per_token(mfu := 0.4, params_b := 7, serving_batch := 32)
--   order by usd_per_1m_training_tokens;
-- No column of this body or of the views it reads may be named like a parameter: DuckDB
-- (2.0) substitutes the argument for such a name, or refuses the macro. Hence the
-- *_assumed columns, and offers read from int_offers_usable, not mart_cost_per_token.
CREATE OR REPLACE MACRO cost_per_token(
    mfu := 0.45, params_b := 70, precision := 'bf16', serving_batch := 1,
    serving_context := 1024, bandwidth_fraction := NULL, compute_fraction := NULL
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
            when serving_batch::double >= 1 and serving_batch::double = floor(serving_batch::double)
                then serving_batch::double
            else error('cost_per_token: serving_batch must be a whole number >= 1, got '
                       || serving_batch::varchar)
        end as batch_assumed,
        case
            when serving_context::double >= 0 then serving_context::double
            else error('cost_per_token: serving_context must be >= 0, got '
                       || serving_context::varchar)
        end as context_assumed,
        case
            when bandwidth_fraction is null then c.decode_bandwidth_share
            when bandwidth_fraction::double > 0 and bandwidth_fraction::double <= 1
                then bandwidth_fraction::double
            else error('cost_per_token: bandwidth_fraction must be in (0, 1], got '
                       || bandwidth_fraction::varchar)
        end as bandwidth_share_assumed,
        case
            when compute_fraction is null then c.decode_compute_share
            when compute_fraction::double > 0 and compute_fraction::double <= 1
                then compute_fraction::double
            else error('cost_per_token: compute_fraction must be in (0, 1], got '
                       || compute_fraction::varchar)
        end as compute_share_assumed,
        case
            when lower(precision) in ('fp32', 'tf32', 'bf16', 'fp8') then lower(precision)
            else error('cost_per_token: precision must be fp32, tf32, bf16 or fp8, got '
                       || precision::varchar)
        end as precision_assumed,
        1e6::double as tokens_assumed,
        1073741824.0::double as bytes_per_gib,
        c.training_flops_per_param_per_token as training_flops_per_param,
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
        end as peak_tflops,
        g.memory_bandwidth_gbps,
        g.interconnect_gbps is not null as has_gpu_link
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
),

-- the serving roofline's inputs, one case per offer (serving_roofline's column names)
serving_cases as (
    select
        *,
        params_assumed as params,
        precision_assumed as precision,
        null::double as weight_bytes_per_param,
        null::double as kv_bytes_per_token,
        batch_assumed as batch,
        context_assumed as context_tokens,
        null::double as longest_tokens,
        null::double as tp,
        has_gpu_link as has_link,
        bandwidth_share_assumed as bandwidth_share,
        compute_share_assumed as compute_share,
        price_usd_per_gpu_hour as rate_usd_per_gpu_hour,
        null::double as prompt_tokens,
        null::double as output_tokens
    from fitted
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
    pricing_model, pricing_detail, price_usd_per_gpu_hour,
    params_assumed / 1e9 as params_b,
    precision_assumed as precision,
    peak_tflops,
    memory_bandwidth_gbps,
    mfu_assumed as mfu,
    training_flops_per_1m_tokens,
    training_gpu_hours_per_1m_tokens,
    training_gpu_hours_per_1m_tokens * price_usd_per_gpu_hour as usd_per_1m_training_tokens,
    batch as serving_batch_size,
    context_tokens as serving_context_tokens,
    bandwidth_share as decode_bandwidth_share,
    compute_share as decode_compute_share,
    tp as gpus_per_replica,
    tp <= gpu_count as replica_fits_instance,
    bound as decode_bound,
    step_seconds as decode_step_seconds,
    tokens_per_second_per_user,
    output_tokens_per_second_per_gpu,
    input_tokens_per_second_per_gpu,
    usd_per_1m_output_tokens,
    usd_per_1m_input_tokens,
    -- deprecated, kept for one release: the old name of the cost per generated token (it
    -- named 2N FLOPs per token at 30% of peak); now the roofline's usd_per_1m_output_tokens
    usd_per_1m_output_tokens as usd_per_1m_inference_tokens,
    training_memory_gib, min_gpus_training,
    min_gpus_training <= gpu_count as fits_training_on_instance,
    serving_memory_gib, min_gpus_serving,
    min_gpus_serving <= gpu_count as fits_serving_on_instance,
    provenance, effective_at, fetched_at, load_id
from serving_roofline('serving_cases')
