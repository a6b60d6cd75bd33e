-- `gpu-pricing history --pricing spot`: every spot price point of fct_spot_prices for GPU
-- $gpu, per provider, region, zone and instance type in time order; memory, provider and
-- $since (a date) null mean any. No rows unless $pricing is 'spot'.
SELECT provider, region, zone, instance_type, gpu_name, gpu_memory_gib,
       price_usd_per_hour, price_usd_per_gpu_hour, observed_at
FROM fct_spot_prices
WHERE gpu_name = $gpu AND ($memory IS NULL OR gpu_memory_gib = $memory)
  AND ($provider IS NULL OR provider = $provider)
  AND ($since IS NULL OR observed_at >= $since) AND $pricing = 'spot'
ORDER BY provider, region, zone, instance_type, observed_at
