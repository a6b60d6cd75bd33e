-- `breakeven spot --gpu`: same-instance spot/on-demand pairs of GPU $gpu (memory null: any)
-- at the user's checkpointing assumptions, from the spot_breakeven table macro
-- (sql/macros/spot_breakeven.sql): both rates, the break-even preemption rate, the
-- published interruption bucket and the effective spot rate. Cheapest spot first, at most
-- $limit rows.
SELECT provider, region, zone, on_demand_zone, instance_type, gpu_name, gpu_memory_gib,
       gpu_count, is_verified, spot_usd_per_gpu_hour, on_demand_usd_per_gpu_hour, spot_discount,
       break_even_preemption_rate_per_hour, interruption_bucket, preemption_rate_per_hour,
       effective_spot_usd_per_gpu_hour, spot_is_cheaper, spot_fetched_at, spot_load_id
FROM spot_breakeven(checkpoint_overhead := $overhead,
                    checkpoint_interval_hours := $interval,
                    restart_hours := $restart,
                    include_illustrative := $include_illustrative)
WHERE gpu_name = $gpu AND ($memory IS NULL OR gpu_memory_gib = $memory)
ORDER BY spot_usd_per_gpu_hour, provider, region, zone NULLS FIRST, instance_type
LIMIT $limit
