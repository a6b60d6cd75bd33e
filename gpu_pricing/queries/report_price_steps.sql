-- The report's price history of GPU $gpu: per pricing model, the cheapest per-GPU-hour rate
-- at every point where a price period of fct_gpu_prices opens or closes, and the provider
-- it comes from. Verified prices of whole machines only (is_verified, host_included);
-- historical sheet rows included.
WITH periods AS (
    SELECT pricing_model, provider, valid_from,
           coalesce(valid_to, TIMESTAMP '9999-12-31') AS valid_until,
           price_usd_per_gpu_hour AS price
    FROM fct_gpu_prices
    WHERE gpu_name = $gpu AND price_usd_per_gpu_hour IS NOT NULL
      AND is_verified AND coalesce(host_included, true)
),
points AS (
    SELECT DISTINCT pricing_model, valid_from AS at FROM periods
    UNION
    SELECT DISTINCT pricing_model, valid_until FROM periods
    WHERE valid_until < TIMESTAMP '9999-12-31'
)
SELECT pt.pricing_model, pt.at, min(p.price) AS price_usd_per_gpu_hour,
       arg_min(p.provider, p.price) AS provider
FROM points pt
JOIN periods p ON p.pricing_model = pt.pricing_model
 AND p.valid_from <= pt.at AND pt.at < p.valid_until
GROUP BY ALL
ORDER BY pt.pricing_model, pt.at
