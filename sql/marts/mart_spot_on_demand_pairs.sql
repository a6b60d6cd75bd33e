-- Every current spot offer next to the on-demand price of the same provider, region and
-- instance type (spot may be per zone: matched to the same zone's on-demand price where
-- on-demand is zonal, else to the regional one), with the provider's published
-- interruption frequency turned into a preemption rate per hour where one is known.
-- The base of mart_spot_breakeven and of the spot_breakeven(...) table macro; it carries
-- no checkpointing assumption (no column may share a name with that macro's parameters).
--
-- Interruption frequency: the AWS Spot Instance Advisor bucket (mart_spot_price_stats.
-- interruption_bucket) is the share f of instances interrupted over the trailing month.
-- With a constant per-hour hazard p an instance survives a 720-hour month with probability
-- exp(-720 p) = 1 - f, so
--   p = -ln(1 - f) / 720.
-- f is the bucket's UPPER bound ('5-10%' -> 0.10): effective spot costs built on it are
-- upper estimates, so spot is never called cheaper on an optimistic rate. '>20%' has no
-- upper bound (the Advisor's 'max' for it is 100%, i.e. p infinite): it uses its lower
-- bound 0.20 and interruption_rate_is_lower_bound says so. p is per instance; a job
-- spanning k instances stops when any of them is reclaimed, about k * p.
with interruption_buckets as (
    select
        label as interruption_bucket,
        coalesce(upper_fraction, lower_fraction) as interruption_fraction_per_month,
        upper_fraction is null as interruption_rate_is_lower_bound
    from (values
        ('<5%', 0.00::double, 0.05::double),
        ('5-10%', 0.05, 0.10),
        ('10-15%', 0.10, 0.15),
        ('15-20%', 0.15, 0.20),
        ('>20%', 0.20, null)
    ) as b(label, lower_fraction, upper_fraction)
),

-- Provider x region x instance_type interruption buckets. Until mart_spot_price_stats
-- (AWS Spot Advisor, issue 3) is in the warehouse no source publishes one and this is
-- empty; then it becomes
--   select provider, region, instance_type, interruption_bucket from mart_spot_price_stats
--   where interruption_bucket is not null
published_interruption as (
    select
        null::varchar as provider, null::varchar as region, null::varchar as instance_type,
        null::varchar as interruption_bucket
    where false
),

spot as (
    select * from mart_gpu_offers_current where pricing_model = 'spot'
),

on_demand as (
    select * from mart_gpu_offers_current where pricing_model = 'on_demand'
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
        b.interruption_rate_is_lower_bound,
        -ln(1 - b.interruption_fraction_per_month) / 720.0 as preemption_rate_per_hour
    from paired p
    left join published_interruption i using (provider, region, instance_type)
    left join interruption_buckets b using (interruption_bucket)
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
