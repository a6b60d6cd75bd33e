-- `breakeven spot --gpu`: same-instance spot/on-demand pairs of GPU $gpu (memory null: any)
-- at the user's checkpointing assumptions, from the spot_breakeven table macro
-- (sql/macros/spot_breakeven.sql): both rates, the break-even preemption rate, the
-- published interruption bucket and the effective spot rate. Cheapest spot first (the spot
-- offer's cheapest_order in mart_gpu_offers_current, the one cheapest-first order), at
-- most $limit rows.
SELECT b.provider, b.region, b.zone, b.on_demand_zone, b.instance_type, b.gpu_name,
       b.gpu_memory_gib, b.gpu_count, b.is_verified, b.spot_usd_per_gpu_hour,
       b.on_demand_usd_per_gpu_hour, b.spot_discount, b.break_even_preemption_rate_per_hour,
       b.interruption_bucket, b.preemption_rate_per_hour, b.effective_spot_usd_per_gpu_hour,
       b.spot_is_cheaper, b.spot_fetched_at, b.spot_load_id
FROM spot_breakeven(checkpoint_overhead := $overhead,
                    checkpoint_interval_hours := $interval,
                    restart_hours := $restart,
                    include_illustrative := $include_illustrative) b
JOIN mart_gpu_offers_current o
  ON o.provider = b.provider AND o.region = b.region AND o.zone IS NOT DISTINCT FROM b.zone
 AND o.instance_type = b.instance_type AND o.pricing_model = 'spot'
WHERE b.gpu_name = $gpu AND ($memory IS NULL OR b.gpu_memory_gib = $memory)
ORDER BY o.cheapest_order
LIMIT $limit
