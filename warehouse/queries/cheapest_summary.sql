-- mart_cheapest_gpu_hour in the columns `refresh` prints and the report charts: per GPU
-- and pricing model, the cheapest rate, where it comes from, and the median of each
-- provider's cheapest.
SELECT gpu_name, gpu_memory_gib, pricing_model, price_usd_per_gpu_hour, provider, region,
       instance_type, median_provider_usd_per_gpu_hour, providers
FROM mart_cheapest_gpu_hour
ORDER BY gpu_name, gpu_memory_gib, pricing_model
