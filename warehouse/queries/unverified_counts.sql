-- The current offers whose price does not count by default (is_verified false:
-- int_provenances), per provenance: what `refresh` says it left out of the cheapest table
-- and what `rates` / `estimate` leave out unless --include-illustrative. Reads
-- mart_gpu_offers_current.
SELECT provenance, count(*) AS offers
FROM mart_gpu_offers_current
WHERE NOT is_verified
GROUP BY provenance
ORDER BY provenance
