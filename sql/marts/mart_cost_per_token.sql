-- Cost per token of every current GPU offer x pricing model, for a model of 1B parameters,
-- at stated assumptions (the columns mfu, inference_utilization, precision): the
-- cost_per_token(...) table macro with params_b := 1 at its default assumptions (MFU 0.45,
-- inference at 30% of peak, dense BF16 peak of the offer's own form factor). Costs scale
-- linearly with the parameter count: multiply by it in billions, or call the macro with
-- params_b := ... . The formulas and the memory rules live in the macro
-- (sql/macros/cost_per_token.sql); GPUs without a BF16 peak (T4, V100, ...) keep their row
-- with null costs rather than a made-up peak.
-- max_params_b_*: the largest model (billions of parameters) one GPU, or the whole
-- instance, holds by the memory rules (16 bytes per parameter to train, 2 bytes + 20%
-- headroom to serve): the GPU's memory over the memory one billion parameters need.
with per_b_params as (
    select * from cost_per_token(params_b := 1)
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count, gpu_variant,
    pricing_model, pricing_detail, price_usd_per_gpu_hour,
    precision, peak_tflops, mfu, inference_utilization,
    training_flops_per_1m_tokens as training_flops_per_1m_tokens_per_b_params,
    training_gpu_hours_per_1m_tokens as training_gpu_hours_per_1m_tokens_per_b_params,
    usd_per_1m_training_tokens as usd_per_1m_training_tokens_per_b_params,
    inference_flops_per_1m_tokens as inference_flops_per_1m_tokens_per_b_params,
    inference_gpu_hours_per_1m_tokens as inference_gpu_hours_per_1m_tokens_per_b_params,
    usd_per_1m_inference_tokens as usd_per_1m_inference_tokens_per_b_params,
    gpu_memory_gib / training_memory_gib as max_params_b_training_per_gpu,
    gpu_memory_gib / training_memory_gib * gpu_count as max_params_b_training_per_instance,
    gpu_memory_gib / serving_memory_gib as max_params_b_serving_per_gpu,
    gpu_memory_gib / serving_memory_gib * gpu_count as max_params_b_serving_per_instance,
    provenance, effective_at, fetched_at, load_id
from per_b_params
