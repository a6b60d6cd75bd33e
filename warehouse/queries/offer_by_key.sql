-- One current offer of mart_gpu_offers_current by its key (provider, region, zone,
-- instance type, pricing model): the two sides of a spot/on-demand pair.
SELECT provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
       gpu_variant, pricing_model, pricing_detail, price_usd_per_hour, price_usd_per_gpu_hour,
       price_flag, provenance, is_verified, source_effective_at, first_seen_at, effective_at,
       fetched_at, load_id
FROM mart_gpu_offers_current
WHERE provider = $provider AND region = $region AND zone IS NOT DISTINCT FROM $zone
  AND instance_type = $instance_type AND pricing_model = $pricing
