-- `gpu-pricing rates` and gpu_pricing.api.rates: current offers of mart_gpu_offers_current
-- in the one cheapest-first order (cheapest_order), with a `note` naming why a row is not
-- ranked by default. By default the usable offers only (int_offers_usable: verified prices
-- of whole machines); $include_illustrative adds unverified provenances and
-- $include_gpu_only accelerator-only prices (host billed apart); each other filter null
-- means any. At most $limit rows (null: all).
SELECT o.provider, o.region, o.zone, o.instance_type, o.gpu_name, o.gpu_memory_gib,
       o.gpu_count, o.gpu_variant, o.vcpus, o.memory_gib, o.pricing_model, o.pricing_detail,
       o.price_usd_per_hour, o.price_usd_per_gpu_hour, o.price_flag, o.host_included,
       o.provenance, o.is_verified, o.effective_at, o.fetched_at, o.load_id, o.cheapest_order,
       nullif(concat_ws('; ',
           CASE WHEN NOT o.is_verified THEN o.provenance || ' price, unranked' END,
           CASE WHEN NOT o.host_included THEN 'GPU only: host billed apart' END,
           o.price_flag), '') AS note
FROM mart_gpu_offers_current o
LEFT JOIN int_offers_usable u USING (cheapest_order)
WHERE (u.cheapest_order IS NOT NULL
       OR ($include_illustrative AND o.host_included)
       OR ($include_gpu_only AND NOT o.host_included
           AND (o.is_verified OR $include_illustrative)))
  AND ($gpu IS NULL OR o.gpu_name = $gpu)
  AND ($variant IS NULL OR o.gpu_variant = $variant)
  AND ($memory IS NULL OR o.gpu_memory_gib = $memory)
  AND ($pricing IS NULL OR o.pricing_model = $pricing)
  AND ($provider IS NULL OR o.provider = $provider)
  AND ($region IS NULL OR o.region = $region)
ORDER BY o.cheapest_order
LIMIT coalesce($limit, 1e12::BIGINT)
