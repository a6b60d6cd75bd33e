-- Spot price statistics per provider x region x instance type, over the last 7, 30 and 90
-- days of fct_spot_prices (every zone pooled), in USD per instance-hour.
-- * "Now" (`as_of`) is the newest point of the provider's feed, not the wall clock, so a
--   replayed snapshot gives the same figures on any day and a stale feed shows its age.
-- * A window also counts the price each zone had when the window opened (its last point
--   before), so a price that did not move for a week still has 7-day figures.
-- * Figures are over points, not time-weighted: a price that changed often weighs more.
-- * Spot discount vs on-demand: the cheapest current spot offer (any zone, from
--   mart_gpu_offers_current) against the on-demand price it pairs with (int_offer_pairs,
--   the one pairing rule); null where there is no on-demand price (p5e/p5en: capacity
--   blocks only).
-- * Interruption bucket where a feed publishes one (AWS Spot Instance Advisor, Linux):
--   `interruption_bucket` is its label, `interruption_rate_max_pct` the label's upper bound.
-- The points are fct_spot_prices' own two parts, the time series read from a cutoff at or
-- before the longest window's opening plus each series' last point before it
-- (int_spot_prices_recent), so a night costs the windows' points, not a year of history;
-- the figures are those of every point (tested against the whole history).
with all_points as (
    select
        provider, region, zone, instance_type, price_usd_per_hour, observed_at,
        gpu_name, gpu_memory_gib, gpu_count
    from int_spot_prices_recent
    union all by name
    select
        provider, region, zone, instance_type, price_usd_per_hour, observed_at,
        gpu_name, gpu_memory_gib, gpu_count
    from int_spot_offer_points
),

feed_now as (
    select provider, max(observed_at) as as_of from all_points group by provider
),

windows as (
    select days from int_spot_stats_windows
),

opens as (
    select f.provider, f.as_of, w.days, f.as_of - to_days(w.days) as opens_at
    from feed_now f cross join windows w
),

-- each zone's price when each window opened: its last point before
opening_price as (
    select
        p.provider, p.region, p.zone, p.instance_type, o.days,
        arg_max(p.price_usd_per_hour, p.observed_at) as price_usd_per_hour
    from all_points p join opens o on p.provider = o.provider and p.observed_at < o.opens_at
    group by p.provider, p.region, p.zone, p.instance_type, o.days
),

in_window as (
    select p.provider, p.region, p.instance_type, o.days, p.price_usd_per_hour
    from all_points p join opens o on p.provider = o.provider and p.observed_at >= o.opens_at
    union all
    select provider, region, instance_type, days, price_usd_per_hour from opening_price
),

-- the figures of each window; the standard deviation over the sorted points (a parallel
-- stddev_samp adds in a varying order, so its last digits changed on every read)
window_stats as (
    select
        provider, region, instance_type, days,
        min(price_usd_per_hour) as lo,
        quantile_cont(price_usd_per_hour, [0.5, 0.95]) as q,
        max(price_usd_per_hour) as hi,
        list_stddev_samp(list(price_usd_per_hour order by price_usd_per_hour)) as sd,
        count(*) as n
    from in_window
    group by all
),

stats as (
    select
        provider, region, instance_type, any_value(f.as_of) as as_of,
        max(lo) filter (where days = 7) as min_usd_per_hour_7d,
        max(q[1]) filter (where days = 7) as p50_usd_per_hour_7d,
        max(q[2]) filter (where days = 7) as p95_usd_per_hour_7d,
        max(hi) filter (where days = 7) as max_usd_per_hour_7d,
        max(sd) filter (where days = 7) as stddev_usd_per_hour_7d,
        max(n) filter (where days = 7) as points_7d,
        max(lo) filter (where days = 30) as min_usd_per_hour_30d,
        max(q[1]) filter (where days = 30) as p50_usd_per_hour_30d,
        max(q[2]) filter (where days = 30) as p95_usd_per_hour_30d,
        max(hi) filter (where days = 30) as max_usd_per_hour_30d,
        max(sd) filter (where days = 30) as stddev_usd_per_hour_30d,
        max(n) filter (where days = 30) as points_30d,
        max(lo) filter (where days = 90) as min_usd_per_hour_90d,
        max(q[1]) filter (where days = 90) as p50_usd_per_hour_90d,
        max(q[2]) filter (where days = 90) as p95_usd_per_hour_90d,
        max(hi) filter (where days = 90) as max_usd_per_hour_90d,
        max(sd) filter (where days = 90) as stddev_usd_per_hour_90d,
        max(n) filter (where days = 90) as points_90d
    from window_stats
    join feed_now f using (provider)
    group by provider, region, instance_type
),

gpus as (
    select
        provider, region, instance_type,
        any_value(gpu_name) as gpu_name, any_value(gpu_memory_gib) as gpu_memory_gib,
        any_value(gpu_count) as gpu_count
    from all_points
    group by all
),

current_spot as (
    select
        provider, region, instance_type,
        min(price_usd_per_hour) as spot_usd_per_hour_now, count(*) as zones_now
    from mart_gpu_offers_current
    where pricing_model = 'spot' and is_verified
    group by all
),

-- the on-demand price each spot offer is compared with: the one pairing rule
-- (int_offer_pairs: same provider, region and instance type, same zone where both are zonal)
on_demand as (
    select provider, region, instance_type, min(on_demand_usd_per_hour) as on_demand_usd_per_hour
    from int_offer_pairs
    where pricing_model = 'spot' and is_verified
    group by all
),

interruptions as (
    select * from int_spot_interruptions_unioned
)

select
    s.provider, s.region, s.instance_type, g.gpu_name, g.gpu_memory_gib, g.gpu_count,
    s.as_of,
    s.min_usd_per_hour_7d, s.p50_usd_per_hour_7d, s.p95_usd_per_hour_7d,
    s.max_usd_per_hour_7d, s.stddev_usd_per_hour_7d, s.points_7d,
    s.min_usd_per_hour_30d, s.p50_usd_per_hour_30d, s.p95_usd_per_hour_30d,
    s.max_usd_per_hour_30d, s.stddev_usd_per_hour_30d, s.points_30d,
    s.min_usd_per_hour_90d, s.p50_usd_per_hour_90d, s.p95_usd_per_hour_90d,
    s.max_usd_per_hour_90d, s.stddev_usd_per_hour_90d, s.points_90d,
    c.spot_usd_per_hour_now, c.zones_now, d.on_demand_usd_per_hour,
    100 * (1 - c.spot_usd_per_hour_now / d.on_demand_usd_per_hour) as spot_discount_pct,
    i.interruption_bucket, i.interruption_rate_max_pct, i.advisor_savings_pct
from stats s
left join gpus g using (provider, region, instance_type)
left join current_spot c using (provider, region, instance_type)
left join on_demand d using (provider, region, instance_type)
left join interruptions i using (provider, region, instance_type)
