-- The report's dated historical prices that are not verified (a survey's rows, e.g. the
-- 2023-04-07 A100/A10 survey in connectors/sheets): closed price periods of fct_gpu_prices
-- with provenance 'unverified', each drawn as a point at the date it held, apart from the
-- verified history lines. $gpu: one GPU name, or NULL for every GPU.
SELECT gpu_name, gpu_memory_gib, pricing_model, provider, valid_from AS at,
       price_usd_per_gpu_hour
FROM fct_gpu_prices
WHERE provenance = 'unverified' AND valid_to IS NOT NULL
  AND price_usd_per_gpu_hour IS NOT NULL
  AND ($gpu::VARCHAR IS NULL OR gpu_name = $gpu::VARCHAR)
ORDER BY gpu_name, gpu_memory_gib, pricing_model, provider, valid_from
