-- The report's price history: per GPU name and pricing model, the cheapest per-GPU-hour
-- rate at every point where a usable price period (int_prices_usable) starts or ends, and the
-- provider it comes from; a point no period covers has a null price (a gap, drawn as one).
-- A period starts at the date its source states (effective_at: a price sheet's
-- as_of, the 2023 survey's date, a price list's effective date, a spot price's timestamp)
-- when that is earlier than the night the warehouse first saw it (valid_from), so the
-- history shows the dates the prices held, not only the nights they were fetched.
-- Verified prices of whole machines with a known GPU only (int_prices_usable, the flags'
-- rule); historical sheet rows included. $gpu: one GPU name, or NULL for every GPU.
WITH periods AS (
    SELECT gpu_name, pricing_model, provider,
           least(coalesce(effective_at, valid_from), valid_from) AS starts,
           coalesce(valid_to, TIMESTAMP '9999-12-31') AS ends,
           price_usd_per_gpu_hour AS price
    FROM int_prices_usable
    WHERE ($gpu::VARCHAR IS NULL OR gpu_name = $gpu::VARCHAR)
),
points AS (
    SELECT DISTINCT gpu_name, pricing_model, starts AS at FROM periods
    UNION
    SELECT DISTINCT gpu_name, pricing_model, ends FROM periods
    WHERE ends < TIMESTAMP '9999-12-31'
)
SELECT pt.gpu_name, pt.pricing_model, pt.at, min(p.price) AS price_usd_per_gpu_hour,
       arg_min(p.provider, (p.price, p.provider)) AS provider  -- equal prices: by name
FROM points pt
LEFT JOIN periods p
  ON p.gpu_name = pt.gpu_name AND p.pricing_model = pt.pricing_model
 AND p.starts <= pt.at AND pt.at < p.ends
GROUP BY ALL
ORDER BY pt.gpu_name, pt.pricing_model, pt.at
