-- The report's cost per 1M training tokens per 1B parameters: per GPU (name x memory) and
-- pricing model, the offer of mart_cost_per_token with the lowest
-- usd_per_1m_training_tokens_per_b_params (at its MFU and BF16 peak assumptions), with its
-- provider, region and MFU. Equal costs are broken by the offer's cheapest_order
-- (mart_gpu_offers_current: the one cheapest-first order), so one row's provider and
-- region are shown together and a rerun shows the same ones. GPUs without a BF16 peak are
-- left out.
SELECT c.gpu_name, c.gpu_memory_gib, c.pricing_model,
       c.usd_per_1m_training_tokens_per_b_params AS usd_per_1m_tokens_per_b_params,
       c.provider, c.region, c.mfu
FROM mart_cost_per_token c
JOIN mart_gpu_offers_current o
  ON o.provider = c.provider AND o.region = c.region AND o.zone IS NOT DISTINCT FROM c.zone
 AND o.instance_type = c.instance_type AND o.pricing_model = c.pricing_model
WHERE c.usd_per_1m_training_tokens_per_b_params IS NOT NULL
QUALIFY row_number() OVER (
    PARTITION BY c.gpu_name, c.gpu_memory_gib, c.pricing_model
    ORDER BY c.usd_per_1m_training_tokens_per_b_params, o.cheapest_order
) = 1
ORDER BY c.gpu_name, c.gpu_memory_gib, c.pricing_model
