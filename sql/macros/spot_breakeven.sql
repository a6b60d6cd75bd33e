-- spot_breakeven(checkpoint_overhead, checkpoint_interval_hours, restart_hours):
-- mart_spot_breakeven at other checkpointing assumptions (models/breakeven.py spot). Per
-- offer priced both spot and on-demand: the break-even preemption rate per hour
--   (1 - spot * (1 + o) / on_demand) / (c / 2 + restart_hours), floored at 0,
-- and, where the provider publishes an interruption frequency (preemption_rate_per_hour of
-- mart_spot_on_demand_pairs: the AWS Spot Advisor bucket, converted by
-- dim_spot_interruption_buckets), T_eff / T = (1 + o) / (1 - p * (c / 2 + restart_hours))
-- and the effective spot cost per useful hour. Pairs are like for like
-- (int_offer_pairs); illustrative or unverified prices only with include_illustrative.
--   select * from spot_breakeven(checkpoint_overhead := 0.10, checkpoint_interval_hours := 0.5);
-- No column of this body or of the views it reads may be named like a parameter: DuckDB
-- (2.0) substitutes the argument for such a name, or refuses the macro.
CREATE OR REPLACE MACRO spot_breakeven(
    checkpoint_overhead := 0.05, checkpoint_interval_hours := 1.0, restart_hours := 0.0,
    include_illustrative := false
) AS TABLE
with assumptions as (
    select
        case
            when checkpoint_overhead::double >= 0 then checkpoint_overhead::double
            else error('spot_breakeven: checkpoint_overhead must be >= 0, got '
                       || checkpoint_overhead::varchar)
        end as overhead_assumed,
        case
            when checkpoint_interval_hours::double > 0 then checkpoint_interval_hours::double
            else error('spot_breakeven: checkpoint_interval_hours must be > 0, got '
                       || checkpoint_interval_hours::varchar)
        end as interval_assumed,
        case
            when restart_hours::double >= 0 then restart_hours::double
            else error('spot_breakeven: restart_hours must be >= 0, got '
                       || restart_hours::varchar)
        end as restart_assumed
),

pairs as (
    select
        provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
        on_demand_zone, is_verified,
        spot_usd_per_hour, on_demand_usd_per_hour, spot_usd_per_gpu_hour,
        on_demand_usd_per_gpu_hour, spot_discount, spot_price_flag, interruption_bucket,
        interruption_fraction_per_month, interruption_rate_is_lower_bound,
        preemption_rate_per_hour as published_preemption_rate_per_hour,
        spot_fetched_at, on_demand_fetched_at, spot_load_id, on_demand_load_id
    from mart_spot_on_demand_pairs
    where is_verified or include_illustrative::boolean
),

lost_work as (
    select p.*, a.*, a.interval_assumed / 2 + a.restart_assumed as lost_hours_per_preemption
    from pairs p
    cross join assumptions a
),

break_even as (
    select
        *,
        greatest(
            0.0,
            (1 - spot_usd_per_hour * (1 + overhead_assumed) / on_demand_usd_per_hour)
                / lost_hours_per_preemption
        ) as break_even_preemption_rate_per_hour,
        case
            when published_preemption_rate_per_hour * lost_hours_per_preemption < 1
                then (1 + overhead_assumed)
                     / (1 - published_preemption_rate_per_hour * lost_hours_per_preemption)
        end as time_multiplier
    from lost_work
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    on_demand_zone, is_verified,
    spot_usd_per_hour, on_demand_usd_per_hour, spot_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    spot_discount,
    overhead_assumed as checkpoint_overhead,
    interval_assumed as checkpoint_interval_hours,
    restart_assumed as restart_hours,
    break_even_preemption_rate_per_hour,
    interruption_bucket, interruption_fraction_per_month, interruption_rate_is_lower_bound,
    published_preemption_rate_per_hour as preemption_rate_per_hour,
    time_multiplier,
    spot_usd_per_hour * time_multiplier as effective_spot_usd_per_hour,
    spot_usd_per_gpu_hour * time_multiplier as effective_spot_usd_per_gpu_hour,
    spot_usd_per_hour * time_multiplier < on_demand_usd_per_hour as spot_is_cheaper,
    spot_fetched_at, on_demand_fetched_at, spot_load_id, on_demand_load_id
from break_even
