-- serving_roofline(inputs): the serving roofline, the one definition. `inputs` names a
-- relation (a view, a table, a CTE of the caller, or a data frame registered by Python)
-- with one row per case to cost; the macro returns its rows with the roofline's columns
-- added. cost_per_token(...) (and so mart_cost_per_token) calls it in SQL; models/serving.py
-- calls it from Python (estimate infer, plan serve, the report), in an in-memory DuckDB.
--
-- A decode step produces one token for each of the `batch` sequences of a replica (a copy
-- of the model on `tp` GPUs, tensor-parallel): it reads every weight once and each
-- sequence's KV cache, and does inference_flops_per_param_per_token (2) FLOPs per
-- parameter per sequence:
--   weight_bytes_per_param = the given one (a quantised model: 0.5 for 4 bits), else by
--                            `precision`: 4 fp32/tf32, 2 bf16, 1 fp8
--   weights_bytes          = params * weight_bytes_per_param
--   kv_cache_bytes         = batch * context_tokens * kv_bytes_per_token
--   decode_memory_seconds  = (weights_bytes + kv_cache_bytes)
--                            / (tp * memory_bandwidth_gbps * 1e9 * bandwidth_share)
--   decode_compute_seconds = batch * 2 * params / (tp * peak_tflops * 1e12 * compute_share)
--   step_seconds           = max(memory, compute) / tp_efficiency
--   bound                  = 'memory' when memory >= compute, else 'compute'
--   tokens_per_second_per_user = 1 / step_seconds
--   output_tokens_per_second_per_gpu = batch / step_seconds / tp
-- The prompt (prefill) is processed in parallel, so it is compute-bound:
--   prefill_seconds_per_token = 2 * params / (tp * peak_tflops * 1e12 * compute_share)
--                               / tp_efficiency
-- Costs at rate_usd_per_gpu_hour (null rate: null costs):
--   usd_per_1m_output_tokens = rate * tp * step_seconds / batch / 3600 * 1e6
--   usd_per_1m_input_tokens  = rate * tp * prefill_seconds_per_token / 3600 * 1e6
-- A request of prompt_tokens + output_tokens (null: no request figures) takes the
-- replica's GPUs for its prefill and its share of the decode steps:
--   gpu_seconds_per_request = tp * (prompt_tokens * prefill_seconds_per_token
--                                   + output_tokens * step_seconds / batch)
--   tokens_per_second_per_gpu = (prompt_tokens + output_tokens) / gpu_seconds_per_request
--   usd_per_request = rate * gpu_seconds_per_request / 3600
-- Tensor parallelism: min_tp is the fewest power of two GPUs of gpu_memory_gib whose
-- serving_memory_share (0.9) holds the weights and the KV cache of the batch at its longest
-- (`longest_tokens`, default prompt_tokens + output_tokens, else context_tokens); a null `tp` takes min_tp (then 1 when the
-- memory is unknown). tp_efficiency = e ^ log2(tp), e per doubling:
-- tensor_parallel_efficiency_nvlink (0.9) where `has_link` (NVLink / Infinity Fabric),
-- else tensor_parallel_efficiency_pcie (0.7).
-- KV cache per token: the given kv_bytes_per_token, else full multi-head attention in BF16
-- at the shape the parameter count implies (params = 12 * layers * d_model^2, d_model =
-- 128 * layers): 2 (K and V) * layers * d_model * 2 bytes; 524,288 bytes for the 7B shape.
-- Models with grouped-query attention hold less (Llama 3 70B: 2 * 80 * 1024 * 2 = 327,680).
-- Attention FLOPs over the context are left out (they matter only at long context and
-- large batch).
-- The constants come from seed_conventions; the shares of peak (decode_bandwidth_share
-- 0.61, decode_compute_share 0.60, measured on an H100 80GB HBM3 with plain PyTorch; see
-- sql/seeds/README.md) are input columns, so a caller states the ones it assumes.
-- Input columns (all required; the nullable ones may hold NULL): params, precision,
-- weight_bytes_per_param (nullable), kv_bytes_per_token (nullable), batch, context_tokens, longest_tokens (nullable),
-- peak_tflops, memory_bandwidth_gbps, gpu_memory_gib (nullable), tp (nullable), has_link,
-- bandwidth_share, compute_share, rate_usd_per_gpu_hour (nullable), prompt_tokens and
-- output_tokens (nullable). Other columns pass through; none may be named like an output
-- column.
--   with c as (select 70e9 as params, 'bf16' as precision, ... )
--   select * from serving_roofline('c');
CREATE OR REPLACE MACRO serving_roofline(inputs) AS TABLE
with conventions as (
    select
        inference_flops_per_param_per_token as roofline_flops_per_param,
        bytes_per_gib as roofline_bytes_per_gib,
        serving_memory_share as roofline_memory_share,
        tensor_parallel_efficiency_nvlink as roofline_tp_efficiency_link,
        tensor_parallel_efficiency_pcie as roofline_tp_efficiency_pcie
    from seed_conventions
),

typed as (
    select
        i.* replace (
            i.params::double as params,
            lower(i.precision::varchar) as precision,
            i.batch::double as batch,
            i.context_tokens::double as context_tokens,
            i.peak_tflops::double as peak_tflops,
            i.memory_bandwidth_gbps::double as memory_bandwidth_gbps,
            i.gpu_memory_gib::double as gpu_memory_gib,
            i.has_link::boolean as has_link,
            i.bandwidth_share::double as bandwidth_share,
            i.compute_share::double as compute_share,
            i.rate_usd_per_gpu_hour::double as rate_usd_per_gpu_hour,
            coalesce(
                i.kv_bytes_per_token::double,
                -- 2 * layers * d_model * 2 bytes, layers = (params / (12 * 128^2))^(1/3)
                2 * pow(i.params::double / (12 * 128.0 * 128.0), 1 / 3)
                    * 128.0 * pow(i.params::double / (12 * 128.0 * 128.0), 1 / 3) * 2
            ) as kv_bytes_per_token,
            i.prompt_tokens::double as prompt_tokens,
            i.output_tokens::double as output_tokens,
            coalesce(
                i.longest_tokens::double,
                i.prompt_tokens::double + i.output_tokens::double,
                i.context_tokens::double
            ) as longest_tokens,
            coalesce(
                i.weight_bytes_per_param::double,
                case lower(i.precision::varchar)
                    when 'fp32' then 4.0 when 'tf32' then 4.0 when 'bf16' then 2.0
                    when 'fp8' then 1.0
                end
            ) as weight_bytes_per_param
        ),
        c.*
    from query_table(inputs) i
    cross join conventions c
),

fitted as (
    select
        *,
        -- weights + the KV cache of the batch at its longest
        (params * weight_bytes_per_param + batch * longest_tokens * kv_bytes_per_token)
            / roofline_bytes_per_gib as memory_needed_gib,
        -- the fewest power of two GPUs whose usable memory holds it
        pow(2, greatest(0, ceil(log2(
            (params * weight_bytes_per_param + batch * longest_tokens * kv_bytes_per_token)
            / (gpu_memory_gib * roofline_bytes_per_gib * roofline_memory_share)
        )))) as min_tp
    from typed
),

sized as (
    select * replace (coalesce(tp::double, min_tp, 1.0) as tp)
    from fitted
),

stepped as (
    select
        *,
        pow(
            case when has_link then roofline_tp_efficiency_link else roofline_tp_efficiency_pcie end,
            log2(tp)
        ) as tp_efficiency,
        params * weight_bytes_per_param as weights_bytes,
        batch * context_tokens * kv_bytes_per_token as kv_cache_bytes,
        (params * weight_bytes_per_param + batch * context_tokens * kv_bytes_per_token)
            / (tp * memory_bandwidth_gbps * 1e9 * bandwidth_share) as decode_memory_seconds,
        batch * roofline_flops_per_param * params
            / (tp * peak_tflops * 1e12 * compute_share) as decode_compute_seconds
    from sized
),

timed as (
    select
        *,
        -- greatest() skips a null: both bounds must be known (a GPU without a peak at the
        -- precision, or without a bandwidth, is not costed)
        case
            when decode_memory_seconds is not null and decode_compute_seconds is not null
                then greatest(decode_memory_seconds, decode_compute_seconds) / tp_efficiency
        end as step_seconds,
        case
            when decode_memory_seconds >= decode_compute_seconds then 'memory'
            when decode_memory_seconds < decode_compute_seconds then 'compute'
        end as bound,
        roofline_flops_per_param * params / (tp * peak_tflops * 1e12 * compute_share)
            / tp_efficiency as prefill_seconds_per_token
    from stepped
),

per_request as (
    select
        *,
        tp * (prompt_tokens * prefill_seconds_per_token + output_tokens * step_seconds / batch)
            as gpu_seconds_per_request
    from timed
)

select
    * exclude (
        roofline_flops_per_param, roofline_bytes_per_gib, roofline_memory_share,
        roofline_tp_efficiency_link, roofline_tp_efficiency_pcie
    ),
    1 / step_seconds as tokens_per_second_per_user,
    batch / step_seconds / tp as output_tokens_per_second_per_gpu,
    1 / (prefill_seconds_per_token * tp) as input_tokens_per_second_per_gpu,
    rate_usd_per_gpu_hour * tp * step_seconds / batch / 3600 * 1e6 as usd_per_1m_output_tokens,
    rate_usd_per_gpu_hour * tp * prefill_seconds_per_token / 3600 * 1e6 as usd_per_1m_input_tokens,
    (prompt_tokens + output_tokens) / gpu_seconds_per_request as tokens_per_second_per_gpu,
    rate_usd_per_gpu_hour * gpu_seconds_per_request / 3600 as usd_per_request
from per_request
