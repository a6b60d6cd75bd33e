-- `gpu-pricing history`: the effective-dated price periods of fct_gpu_prices (valid_from,
-- valid_to; an open period has valid_to null) for GPU $gpu that were still valid on $since;
-- memory, pricing model, provider and $since null mean any.
SELECT provider, region, zone, instance_type, pricing_model, pricing_detail,
       gpu_name, gpu_memory_gib, price_usd_per_hour, price_usd_per_gpu_hour,
       valid_from, valid_to
FROM fct_gpu_prices
WHERE gpu_name = $gpu AND ($memory IS NULL OR gpu_memory_gib = $memory)
  AND ($pricing IS NULL OR pricing_model = $pricing)
  AND ($provider IS NULL OR provider = $provider)
  AND ($since IS NULL OR coalesce(valid_to, TIMESTAMP '9999-12-31') >= $since)
ORDER BY valid_from, provider, region, instance_type, pricing_model
