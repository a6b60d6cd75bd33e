-- Spot vs on-demand for every offer priced both ways (mart_spot_on_demand_pairs: same
-- provider, region, instance type, and zone where both have one; verified prices), at a
-- checkpoint overhead o = 0.05 and a checkpoint every c = 1 hour; a preemption loses c/2
-- of work on average (models/breakeven.py spot):
--   spot_discount                       = 1 - spot / on_demand
--   break_even_preemption_rate_per_hour = (2 / c) * (1 - spot * (1 + o) / on_demand), >= 0
--   time_multiplier (T_eff / T)         = (1 + o) / (1 - p * c / 2)
--   effective spot cost per useful hour = spot * time_multiplier
-- p, the preemption rate per hour, is known where the provider publishes an interruption
-- frequency (the AWS Spot Advisor bucket; conversion p = -ln(1 - f) / 720 stated in
-- dim_spot_interruption_buckets.sql); elsewhere the effective cost is null. Other assumptions:
-- the spot_breakeven(checkpoint_overhead := ..., checkpoint_interval_hours := ...) macro.
with assumptions as (
    select
        0.05::double as checkpoint_overhead,
        1.0::double as checkpoint_interval_hours,
        0.0::double as restart_hours
),

pairs as (
    select * from mart_spot_on_demand_pairs where is_verified
),

lost_work as (
    select
        p.*, a.*,
        a.checkpoint_interval_hours / 2 + a.restart_hours as lost_hours_per_preemption
    from pairs p
    cross join assumptions a
),

break_even as (
    select
        *,
        greatest(
            0.0,
            (1 - spot_usd_per_hour * (1 + checkpoint_overhead) / on_demand_usd_per_hour)
                / lost_hours_per_preemption
        ) as break_even_preemption_rate_per_hour,
        case
            when preemption_rate_per_hour * lost_hours_per_preemption < 1
                then (1 + checkpoint_overhead)
                     / (1 - preemption_rate_per_hour * lost_hours_per_preemption)
        end as time_multiplier
    from lost_work
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    spot_usd_per_hour, on_demand_usd_per_hour, spot_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    spot_discount, checkpoint_overhead, checkpoint_interval_hours, restart_hours,
    break_even_preemption_rate_per_hour,
    interruption_bucket, interruption_fraction_per_month, interruption_rate_is_lower_bound,
    preemption_rate_per_hour, time_multiplier,
    spot_usd_per_hour * time_multiplier as effective_spot_usd_per_hour,
    spot_usd_per_gpu_hour * time_multiplier as effective_spot_usd_per_gpu_hour,
    spot_usd_per_hour * time_multiplier < on_demand_usd_per_hour as spot_is_cheaper,
    spot_fetched_at, on_demand_fetched_at, spot_load_id, on_demand_load_id
from break_even
