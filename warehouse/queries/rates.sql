-- `gpu-pricing rates` and gpu_pricing.api.rates: current offers of mart_gpu_offers_current
-- in the one cheapest-first order (cheapest_order), with a `note` naming why a row is not
-- ranked by default. By default the usable offers only (is_usable, stored with the mart from
-- int_offers_usable: verified prices of whole machines); $include_illustrative adds
-- unverified provenances and $include_gpu_only accelerator-only prices (host billed apart);
-- each other filter null means any. At most $limit rows (null: all).
-- listed_by_default: the row is listed without $include_illustrative, the one statement of
-- what the default answer shows; left_out.sql counts the rows without it (the API drops
-- the column from rates' own rows). Reads the stored mart only: no view is computed.
WITH offers AS (
    SELECT o.*,
           o.is_usable OR ($include_gpu_only AND NOT o.host_included AND o.is_verified)
               AS listed_by_default
    FROM mart_gpu_offers_current o
    WHERE ($gpu IS NULL OR o.gpu_name = $gpu)
      AND ($variant IS NULL OR o.gpu_variant = $variant)
      AND ($memory IS NULL OR o.gpu_memory_gib = $memory)
      AND ($pricing IS NULL OR o.pricing_model = $pricing)
      AND ($provider IS NULL OR o.provider = $provider)
      AND ($region IS NULL OR o.region = $region)
)
SELECT provider, region, zone, instance_type, gpu_name, gpu_memory_gib,
       gpu_count, gpu_variant, vcpus, memory_gib, pricing_model, pricing_detail,
       price_usd_per_hour, price_usd_per_gpu_hour, price_flag, host_included,
       provenance, is_verified, effective_at, fetched_at, load_id, cheapest_order,
       nullif(concat_ws('; ',
           CASE WHEN NOT is_verified THEN provenance || ' price, unranked' END,
           CASE WHEN NOT host_included THEN 'GPU only: host billed apart' END,
           price_flag), '') AS note,
       listed_by_default
FROM offers
WHERE listed_by_default OR ($include_illustrative AND (host_included OR $include_gpu_only))
ORDER BY cheapest_order
LIMIT coalesce($limit, 1e12::BIGINT)
