-- `gpu-pricing rates`: current offers of mart_gpu_offers_current, cheapest per-GPU-hour
-- rate first, with a `note` naming why a row is not ranked by default. Verified prices of
-- whole machines (the is_verified and host_included columns) unless $include_illustrative
-- or $include_gpu_only; each other filter null means any. At most $limit rows.
SELECT provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
       vcpus, memory_gib, pricing_model, pricing_detail, price_usd_per_hour,
       price_usd_per_gpu_hour, price_flag, host_included, provenance,
       effective_at, fetched_at, load_id,
       nullif(concat_ws('; ',
           CASE WHEN NOT is_verified THEN provenance || ' price, not ranked by default' END,
           CASE WHEN NOT host_included THEN 'GPU only: host billed apart' END,
           price_flag), '') AS note
FROM mart_gpu_offers_current
WHERE (is_verified OR $include_illustrative)
  AND (host_included OR $include_gpu_only)
  AND ($gpu IS NULL OR gpu_name = $gpu)
  AND ($variant IS NULL OR gpu_variant = $variant)
  AND ($memory IS NULL OR gpu_memory_gib = $memory)
  AND ($pricing IS NULL OR pricing_model = $pricing)
  AND ($provider IS NULL OR provider = $provider)
  AND ($region IS NULL OR lower(region) = lower($region))
ORDER BY price_usd_per_gpu_hour NULLS LAST, price_usd_per_hour, provider, region, instance_type
LIMIT $limit
