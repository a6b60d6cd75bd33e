-- Every column of mart_cheapest_gpu_hour: per GPU (name x memory) and pricing model, the
-- cheapest usable offer now and the median of each provider's cheapest.
SELECT *
FROM mart_cheapest_gpu_hour
ORDER BY gpu_name, gpu_memory_gib, pricing_model
