-- Cost per token of every current GPU offer x pricing model, for a model of 1B parameters,
-- at stated assumptions (the columns mfu, precision, serving_batch_size,
-- serving_context_tokens, decode_bandwidth_share, decode_compute_share): the
-- cost_per_token(...) table macro with params_b := 1 at its default assumptions (MFU 0.45,
-- dense BF16 peak of the offer's own form factor; serving one sequence at a time with
-- 1024 tokens of context on the serving roofline at the measured shares of peak).
-- Training costs scale linearly with the parameter count: multiply by it in billions.
-- Serving at batch 1 is bound by memory bandwidth, where the weights dominate the bytes
-- read, so its costs scale about linearly too (the KV cache grows more slowly); for a
-- given model or batch call the macro with params_b := ..., serving_batch := ... .
-- The formulas and the memory rules live in the macros (sql/macros/cost_per_token.sql,
-- sql/macros/serving_roofline.sql); GPUs without a BF16 peak (T4, V100, ...) keep their
-- row with null costs rather than a made-up peak.
-- max_params_b_*: the largest model (billions of parameters) one GPU, or the whole
-- instance, holds by the memory rules (16 bytes per parameter to train, 2 bytes + 20%
-- headroom to serve): the GPU's memory over the memory one billion parameters need.
with per_b_params as (
    select * from cost_per_token(params_b := 1)
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
    pricing_model, pricing_detail, price_usd_per_gpu_hour,
    precision, peak_tflops, memory_bandwidth_gbps, mfu,
    training_flops_per_1m_tokens as training_flops_per_1m_tokens_per_b_params,
    training_gpu_hours_per_1m_tokens as training_gpu_hours_per_1m_tokens_per_b_params,
    usd_per_1m_training_tokens as usd_per_1m_training_tokens_per_b_params,
    serving_batch_size, serving_context_tokens, decode_bandwidth_share, decode_compute_share,
    decode_bound,
    output_tokens_per_second_per_gpu as output_tokens_per_second_per_gpu_at_1b_params,
    usd_per_1m_output_tokens as usd_per_1m_output_tokens_per_b_params,
    usd_per_1m_input_tokens as usd_per_1m_input_tokens_per_b_params,
    -- deprecated, kept for one release (the macro's usd_per_1m_inference_tokens)
    usd_per_1m_inference_tokens as usd_per_1m_inference_tokens_per_b_params,
    gpu_memory_gib / training_memory_gib as max_params_b_training_per_gpu,
    gpu_memory_gib / training_memory_gib * gpu_count as max_params_b_training_per_instance,
    gpu_memory_gib / serving_memory_gib as max_params_b_serving_per_gpu,
    gpu_memory_gib / serving_memory_gib * gpu_count as max_params_b_serving_per_instance,
    provenance, effective_at, fetched_at, load_id
from per_b_params
