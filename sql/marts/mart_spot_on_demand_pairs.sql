-- Every current spot offer next to the on-demand price it pairs with (int_offer_pairs,
-- the one pairing rule: same provider, region and instance type, same zone where both
-- have one), with the provider's published interruption frequency turned into a
-- preemption rate per hour where one is known. `is_verified`: both prices count by
-- default (illustrative or unverified prices are left out of mart_spot_breakeven and of
-- the macro unless asked for).
-- The base of mart_spot_breakeven and of the spot_breakeven(...) table macro; it carries
-- no checkpointing assumption (no column may share a name with that macro's parameters).
--
-- Interruption frequency: the provider's published bucket (AWS Spot Instance Advisor)
-- turned into a preemption rate per hour by dim_spot_interruption_buckets, where the
-- conversion p = -ln(1 - f) / 720 and the choice of f (the bucket's upper bound) are stated.
--
-- published_interruption: the provider x region x instance_type buckets of
-- mart_spot_price_stats (AWS Spot Instance Advisor, Linux).
-- the bucket as the feed publishes it (int_spot_interruptions_unioned), not through the
-- spot statistics: a published frequency is not a price point, and an offer whose points
-- are illustrative (in no statistic) keeps its provider's published bucket
with published_interruption as (
    select distinct provider, region, instance_type, interruption_bucket
    from int_spot_interruptions_unioned
    where interruption_bucket is not null
),

paired as (
    select
        provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
        on_demand_zone,
        price_usd_per_hour as spot_usd_per_hour,
        on_demand_usd_per_hour,
        price_usd_per_gpu_hour as spot_usd_per_gpu_hour,
        on_demand_usd_per_gpu_hour,
        pair_flag as spot_price_flag,
        is_verified,
        fetched_at as spot_fetched_at, on_demand_fetched_at,
        load_id as spot_load_id, on_demand_load_id
    from int_offer_pairs
    where pricing_model = 'spot'
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
    on_demand_zone, spot_usd_per_hour, on_demand_usd_per_hour, spot_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    1 - spot_usd_per_hour / on_demand_usd_per_hour as spot_discount,
    spot_price_flag, is_verified,
    interruption_bucket, interruption_fraction_per_month, interruption_rate_is_lower_bound,
    preemption_rate_per_hour,
    spot_fetched_at, on_demand_fetched_at, spot_load_id, on_demand_load_id
from with_interruption
