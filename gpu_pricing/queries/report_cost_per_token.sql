-- The report's cost per 1M training tokens per 1B parameters: per GPU (name x memory) and
-- pricing model, the offer of mart_cost_per_token with the lowest
-- usd_per_1m_training_tokens_per_b_params (at its MFU and BF16 peak assumptions), with its
-- provider, region and MFU. Equal costs are broken as every ranking breaks them (provider,
-- region, zone with none first, instance type), so one row's provider and region are shown
-- together and a rerun shows the same ones. GPUs without a BF16 peak are left out.
SELECT gpu_name, gpu_memory_gib, pricing_model,
       usd_per_1m_training_tokens_per_b_params AS usd_per_1m_tokens_per_b_params,
       provider, region, mfu
FROM mart_cost_per_token
WHERE usd_per_1m_training_tokens_per_b_params IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY gpu_name, gpu_memory_gib, pricing_model
    ORDER BY usd_per_1m_training_tokens_per_b_params, provider, region, zone NULLS FIRST,
             instance_type
) = 1
ORDER BY gpu_name, gpu_memory_gib, pricing_model
