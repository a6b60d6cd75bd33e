-- The report's spot bands of GPU $gpu: per provider and region (one `region` label), the
-- count, 5th percentile, median and 95th percentile of its spot price points in
-- fct_spot_prices, and the first and last time one was seen; lowest median first.
SELECT provider || ' ' || region AS region, count(*) AS points,
       quantile_cont(price_usd_per_gpu_hour, 0.05) AS p5_usd_per_gpu_hour,
       median(price_usd_per_gpu_hour) AS p50_usd_per_gpu_hour,
       quantile_cont(price_usd_per_gpu_hour, 0.95) AS p95_usd_per_gpu_hour,
       min(observed_at) AS first_seen, max(observed_at) AS last_seen
FROM fct_spot_prices
WHERE gpu_name = $gpu AND price_usd_per_gpu_hour IS NOT NULL
GROUP BY ALL
ORDER BY p50_usd_per_gpu_hour, region
