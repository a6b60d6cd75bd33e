-- The regions of current offers (one column, region), of provider $provider (null: any):
-- what a region filter is checked against.
SELECT DISTINCT region
FROM mart_gpu_offers_current
WHERE region IS NOT NULL AND ($provider IS NULL OR provider = $provider)
ORDER BY region
