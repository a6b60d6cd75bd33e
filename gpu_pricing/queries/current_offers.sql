-- Every column of mart_gpu_offers_current, cheapest per-GPU-hour rate first, filtered by
-- GPU ($gpu, any case), memory, pricing model, provider and region (each null: any), at
-- most $limit rows (null: all). gpu_pricing.api.rates.
SELECT *
FROM mart_gpu_offers_current
WHERE ($gpu IS NULL OR gpu_name = upper($gpu))
  AND ($memory IS NULL OR gpu_memory_gib = $memory)
  AND ($pricing IS NULL OR pricing_model = $pricing)
  AND ($provider IS NULL OR provider = $provider)
  AND ($region IS NULL OR region = $region)
ORDER BY price_usd_per_gpu_hour NULLS LAST, price_usd_per_hour, provider, region,
         instance_type
LIMIT coalesce($limit, 1e12::BIGINT)
