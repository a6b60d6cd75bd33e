-- Every current spot offer next to the on-demand price of the same provider, region and
-- instance type (spot may be per zone: matched to the same zone's on-demand price where
-- on-demand is zonal, else to the regional one), with the provider's published
-- interruption frequency turned into a preemption rate per hour where one is known.
-- The base of mart_spot_breakeven and of the spot_breakeven(...) table macro; it carries
-- no checkpointing assumption (no column may share a name with that macro's parameters).
--
-- Interruption frequency: the provider's published bucket (AWS Spot Instance Advisor)
-- turned into a preemption rate per hour by dim_spot_interruption_buckets, where the
-- conversion p = -ln(1 - f) / 720 and the choice of f (the bucket's upper bound) are stated.
--
-- published_interruption: the provider x region x instance_type buckets of
-- mart_spot_price_stats (AWS Spot Instance Advisor, Linux; issue 3).
with published_interruption as (
    select provider, region, instance_type, interruption_bucket
    from mart_spot_price_stats
    where interruption_bucket is not null
),

spot as (
    select * from mart_gpu_offers_current where is_verified and pricing_model = 'spot'
),

on_demand as (
    select * from mart_gpu_offers_current where is_verified and pricing_model = 'on_demand'
),

paired as (
    select
        s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib,
        s.gpu_count,
        s.price_usd_per_hour as spot_usd_per_hour,
        d.price_usd_per_hour as on_demand_usd_per_hour,
        s.price_usd_per_gpu_hour as spot_usd_per_gpu_hour,
        d.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        s.price_flag as spot_price_flag,
        s.fetched_at as spot_fetched_at, d.fetched_at as on_demand_fetched_at,
        s.load_id as spot_load_id, d.load_id as on_demand_load_id
    from spot s
    join on_demand d
      on d.provider = s.provider
     and d.region = s.region
     and d.instance_type = s.instance_type
     and (d.zone is null or d.zone = s.zone)
    qualify row_number() over (
        partition by s.provider, s.region, s.zone, s.instance_type
        order by d.zone is null, d.price_usd_per_hour
    ) = 1
),

with_interruption as (
    select
        p.*,
        i.interruption_bucket, b.interruption_fraction_per_month,
        b.interruption_rate_is_lower_bound, b.preemption_rate_per_hour
    from paired p
    left join published_interruption i using (provider, region, instance_type)
    left join dim_spot_interruption_buckets b using (interruption_bucket)
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    spot_usd_per_hour, on_demand_usd_per_hour, spot_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    1 - spot_usd_per_hour / on_demand_usd_per_hour as spot_discount,
    spot_price_flag,
    interruption_bucket, interruption_fraction_per_month, interruption_rate_is_lower_bound,
    preemption_rate_per_hour,
    spot_fetched_at, on_demand_fetched_at, spot_load_id, on_demand_load_id
from with_interruption
