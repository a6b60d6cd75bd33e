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
-- (all_points is read twice, each time streamed from its sources: held, the 90 days of
-- points with their names took ~400 MiB at a year of history)
with all_points as not materialized (
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

-- when each window opens, per provider (the windows are int_spot_stats_windows')
opens as (
    select
        f.provider, f.as_of,
        any_value(f.as_of - to_days(w.days)) filter (where w.days = 7) as opens_7d,
        any_value(f.as_of - to_days(w.days)) filter (where w.days = 30) as opens_30d,
        any_value(f.as_of - to_days(w.days)) filter (where w.days = 90) as opens_90d
    from feed_now f cross join int_spot_stats_windows w
    group by f.provider, f.as_of
),

points as not materialized (
    select p.*, o.as_of, o.opens_7d, o.opens_30d, o.opens_90d
    from all_points p join opens o using (provider)
),

-- each zone's price when each window opened: its last point before
opening_price as (
    select
        provider, region, zone, instance_type,
        arg_max(price_usd_per_hour, observed_at) filter (where observed_at < opens_7d) as open_7d,
        arg_max(price_usd_per_hour, observed_at) filter (where observed_at < opens_30d) as open_30d,
        arg_max(price_usd_per_hour, observed_at) filter (where observed_at < opens_90d) as open_90d,
        bool_or(observed_at < opens_7d) as has_7d,
        bool_or(observed_at < opens_30d) as has_30d,
        bool_or(observed_at < opens_90d) as has_90d
    from points
    group by provider, region, zone, instance_type
),

-- every point with the windows it is in, and each zone's opening price in its own window
in_window as (
    select
        provider, region, instance_type, price_usd_per_hour, as_of,
        observed_at >= opens_7d as in_7d, observed_at >= opens_30d as in_30d,
        observed_at >= opens_90d as in_90d, gpu_name, gpu_memory_gib, gpu_count
    from points
    union all by name
    select provider, region, instance_type, open_7d as price_usd_per_hour, true as in_7d,
           false as in_30d, false as in_90d
    from opening_price where has_7d
    union all by name
    select provider, region, instance_type, open_30d as price_usd_per_hour, false as in_7d,
           true as in_30d, false as in_90d
    from opening_price where has_30d
    union all by name
    select provider, region, instance_type, open_90d as price_usd_per_hour, false as in_7d,
           false as in_30d, true as in_90d
    from opening_price where has_90d
),

-- each (provider, region, instance type)'s prices in each window, sorted: its lowest the
-- first, its highest the last, its quantiles DuckDB's quantile_cont over them and its
-- standard deviation taken over them in that order (a parallel stddev_samp adds in a
-- varying order, so its last digits changed on every read). A group with no point in any
-- window has no lists, one with points in another window an empty one. (One list of every
-- window's points with their windows, sorted once and split, took ~40% more CPU: sorting
-- a struct costs more than sorting the smaller windows' prices again.)
windows_sorted as (
    select
        provider, region, instance_type, any_value(as_of) as as_of,
        any_value(gpu_name) as gpu_name, any_value(gpu_memory_gib) as gpu_memory_gib,
        any_value(gpu_count) as gpu_count,
        bool_or(in_7d or in_30d or in_90d) as in_any,
        list(price_usd_per_hour order by price_usd_per_hour) filter (where in_7d) as l_7d,
        list(price_usd_per_hour order by price_usd_per_hour) filter (where in_30d) as l_30d,
        list(price_usd_per_hour order by price_usd_per_hour) filter (where in_90d) as l_90d
    from in_window
    group by provider, region, instance_type
),

windows as (
    select
        * exclude (in_any, l_7d, l_30d, l_90d),
        case when in_any then coalesce(l_7d, []) end as w_7d,
        case when in_any then coalesce(l_30d, []) end as w_30d,
        case when in_any then coalesce(l_90d, []) end as w_90d
    from windows_sorted
),

stats as (
    select
        provider, region, instance_type, as_of, gpu_name, gpu_memory_gib, gpu_count,
        w_7d[1] as min_usd_per_hour_7d,
        list_aggregate(w_7d, 'quantile_cont', [0.5, 0.95]) as q_7d,
        w_7d[-1] as max_usd_per_hour_7d,
        list_stddev_samp(w_7d) as stddev_usd_per_hour_7d,
        len(w_7d) as points_7d,
        w_30d[1] as min_usd_per_hour_30d,
        list_aggregate(w_30d, 'quantile_cont', [0.5, 0.95]) as q_30d,
        w_30d[-1] as max_usd_per_hour_30d,
        list_stddev_samp(w_30d) as stddev_usd_per_hour_30d,
        len(w_30d) as points_30d,
        w_90d[1] as min_usd_per_hour_90d,
        list_aggregate(w_90d, 'quantile_cont', [0.5, 0.95]) as q_90d,
        w_90d[-1] as max_usd_per_hour_90d,
        list_stddev_samp(w_90d) as stddev_usd_per_hour_90d,
        len(w_90d) as points_90d
    from windows
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
    s.provider, s.region, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.as_of,
    s.min_usd_per_hour_7d, s.q_7d[1] as p50_usd_per_hour_7d, s.q_7d[2] as p95_usd_per_hour_7d,
    s.max_usd_per_hour_7d, s.stddev_usd_per_hour_7d, s.points_7d,
    s.min_usd_per_hour_30d, s.q_30d[1] as p50_usd_per_hour_30d, s.q_30d[2] as p95_usd_per_hour_30d,
    s.max_usd_per_hour_30d, s.stddev_usd_per_hour_30d, s.points_30d,
    s.min_usd_per_hour_90d, s.q_90d[1] as p50_usd_per_hour_90d, s.q_90d[2] as p95_usd_per_hour_90d,
    s.max_usd_per_hour_90d, s.stddev_usd_per_hour_90d, s.points_90d,
    c.spot_usd_per_hour_now, c.zones_now, d.on_demand_usd_per_hour,
    100 * (1 - c.spot_usd_per_hour_now / d.on_demand_usd_per_hour) as spot_discount_pct,
    i.interruption_bucket, i.interruption_rate_max_pct, i.advisor_savings_pct
from stats s
left join current_spot c using (provider, region, instance_type)
left join on_demand d using (provider, region, instance_type)
left join interruptions i using (provider, region, instance_type)
