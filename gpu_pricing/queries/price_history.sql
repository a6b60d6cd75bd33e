-- Every column of fct_gpu_prices (effective-dated price periods: valid_from, valid_to) of
-- GPU $gpu (any case), filtered by memory, pricing model and provider (each null: any).
-- gpu_pricing.api.history.
SELECT *
FROM fct_gpu_prices
WHERE gpu_name = upper($gpu)
  AND ($memory IS NULL OR gpu_memory_gib = $memory)
  AND ($pricing IS NULL OR pricing_model = $pricing)
  AND ($provider IS NULL OR provider = $provider)
ORDER BY valid_from, provider, region, instance_type, pricing_model
