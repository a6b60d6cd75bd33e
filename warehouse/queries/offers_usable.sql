-- Every usable current offer (is_usable: stored with mart_gpu_offers_current from
-- int_offers_usable, verified prices of whole machines with a known GPU), cheapest first
-- (cheapest_order, the one cheapest-first order), with its form factor (gpu_variant, the
-- key of its peaks in dim_gpu_variants), the market flag rates shows (price_flag), and the
-- published interruption frequency of spot offers as a preemption rate per instance-hour
-- (mart_spot_on_demand_pairs, from dim_spot_interruption_buckets). The offers the planners
-- read (gpu_pricing.api.offers). Reads the two stored tables only, not the offer views.
SELECT o.provider, o.region, o.zone, o.instance_type, o.gpu_name, o.gpu_memory_gib,
       o.gpu_variant, o.gpu_count, o.vcpus, o.memory_gib, o.pricing_model, o.pricing_detail,
       o.price_usd_per_hour, o.price_usd_per_gpu_hour, o.price_flag, o.capacity_instances,
       o.effective_at,
       o.fetched_at, o.load_id, o.cheapest_order,
       CASE WHEN o.pricing_model = 'spot' THEN s.preemption_rate_per_hour END
           AS preemption_rate_per_hour,
       CASE WHEN o.pricing_model = 'spot' THEN s.interruption_bucket END
           AS interruption_bucket
FROM mart_gpu_offers_current o
LEFT JOIN mart_spot_on_demand_pairs s
  ON s.provider = o.provider AND s.region = o.region AND s.instance_type = o.instance_type
 AND s.zone IS NOT DISTINCT FROM o.zone
WHERE o.is_usable
ORDER BY o.cheapest_order
