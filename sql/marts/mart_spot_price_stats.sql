-- Spot price statistics per provider x region x instance type, over the last 7, 30 and 90
-- days of fct_spot_prices (every zone pooled), in USD per instance-hour.
-- * "Now" (`as_of`) is the newest point of the provider's feed, not the wall clock, so a
--   replayed snapshot gives the same figures on any day and a stale feed shows its age.
-- * A window also counts the price each zone had when the window opened (its last point
--   before), so a price that did not move for a week still has 7-day figures.
-- * Figures are over points, not time-weighted: a price that changed often weighs more.
-- * Quantiles are DuckDB's quantile_cont; the standard deviation (the sample one) is taken
--   from the exact sums of the prices and their squares in nano-dollars, so a price with
--   more than nine decimals counts rounded to the nano-dollar, and the figure is the same
--   to the last digit whatever order the points are read in.
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
-- (all_points is read twice, each time streamed from its sources: held, the 90 days
-- of points with their names took ~400 MiB at a year of history. No window's prices are
-- sorted: a sort of each window's prices, for its quantiles and a standard deviation
-- summed in sorted order, cost ~0.5 s at a year of history. The figures are grouped per
-- (provider, region, instance type) twice, the quantiles from the points and the rest from
-- the zones' parts: 1M Azure items are 166,670 groups, each grouping and join of them
-- ~0.1-0.2 s; one grouping of both, each of the 90 days' points passing every figure's
-- aggregate, cost ~0.25 s more at a year)
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

-- "now" per provider: the newest point of all_points, read without reading the 90 days.
-- The refresh keeps each time-series provider's cutoff at its newest point less the
-- longest window (warehouse/spot_openings.py, run before the marts are built), so its
-- newest point is read from that bound on: the newest row groups only (DuckDB skips the
-- others by the bound). A point found there is the newest of every point of the series
-- (and so of int_spot_prices_recent's: the bound is at or after its cutoff). Where a
-- provider with a cutoff has no point there (the cutoff not brought up to its points), or
-- no cutoff is kept, int_spot_prices_recent is read whole, as before. (Every
-- time-series provider has a cutoff or none has: spot_openings keeps them together, and
-- int_spot_prices_recent reads no provider's older points once one has.)
newest_bounds as (
    select c.provider, c.cutoff + to_days(cast(w.days as integer)) as bound
    from _spot_cutoffs c, (select max(days) as days from int_spot_stats_windows) w
),

series_newest as (
    select s.provider, max(s.observed_at) as observed_at
    from int_spot_prices_unioned s join newest_bounds b using (provider)
    where s.observed_at >= (select min(bound) from newest_bounds) and s.observed_at >= b.bound
    group by s.provider
),

-- one row when the bounds do not stand for every series (DuckDB reads no point of
-- int_spot_prices_recent below when it is empty)
read_every_point as (
    select 1 as x from newest_bounds anti join series_newest using (provider)
    union all
    select 1 where not exists (from newest_bounds)
    limit 1
),

feed_now as (
    select provider, max(observed_at) as as_of from (
        select provider, observed_at from series_newest
        union all
        select provider, observed_at from int_spot_prices_recent
        where exists (from read_every_point)
        union all
        select provider, observed_at from int_spot_offer_points
    )
    group by provider
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

-- each zone's points in four parts: 0 from the 7-day window's opening on, 1 from the
-- 30-day one's, 2 from the 90-day one's, 3 before; a part's figures (its last price,
-- lowest, highest, count and the sums of its prices and their squares in nano-dollars)
-- add up to a window's, and its last price is the zone's price when the next window opened
-- (one pass over the points in place of one for the opening prices and one for the figures)
parts as (
    select
        provider, region, zone, instance_type,
        case
            when observed_at >= opens_7d then 0 when observed_at >= opens_30d then 1
            when observed_at >= opens_90d then 2 else 3
        end as part,
        any_value(as_of) as as_of, any_value(gpu_name) as gpu_name,
        any_value(gpu_memory_gib) as gpu_memory_gib, any_value(gpu_count) as gpu_count,
        arg_max(price_usd_per_hour, observed_at) as last_price,
        min(price_usd_per_hour) as lowest, max(price_usd_per_hour) as highest,
        count(*) as n, sum(nano) as s1, sum(nano * nano) as s2
    from (
        select *, cast(round(price_usd_per_hour * 1e9) as hugeint) as nano from points
    )
    group by all
),

-- the windows (int_spot_stats_windows'), each with the last part it holds
spans as (
    select days, case days when 7 then 0 when 30 then 1 when 90 then 2 end as last_part
    from int_spot_stats_windows
),

-- each zone's price when each window opened: its last point before, the last price of
-- its latest part before the window
opening_price as (
    select
        p.provider, p.region, p.zone, p.instance_type, w.days,
        arg_min(p.last_price, p.part) as price_usd_per_hour
    from parts p join spans w on p.part > w.last_part
    group by all
),

-- what each window's figures add up, each row with the windows it counts in: each zone's
-- parts (the 7-day window holds part 0, the 30-day one parts 0-1, the 90-day one 0-2:
-- spans) and its opening prices (a part of one price each)
window_rows as (
    select
        p.provider, p.region, p.instance_type, p.as_of, p.gpu_name, p.gpu_memory_gib,
        p.gpu_count, p.part <= 0 as in_7d, p.part <= 1 as in_30d, p.part <= 2 as in_90d,
        p.lowest, p.highest, p.n, p.s1, p.s2
    from parts p
    union all by name
    select
        provider, region, instance_type, days = 7 as in_7d, days = 30 as in_30d,
        days = 90 as in_90d, price_usd_per_hour as lowest, price_usd_per_hour as highest,
        1 as n, nano as s1, nano * nano as s2
    from (
        select *, cast(round(price_usd_per_hour * 1e9) as hugeint) as nano from opening_price
    )
),

-- per (provider, region, instance type): its GPU, "now", and each window's lowest and
-- highest price, its count and the exact sums of its prices and their squares in
-- nano-dollars (n * sum(x^2) - sum(x)^2, below, is an integer: the same whatever the order
-- the points are added in, so every read gives the same standard deviation, to the last
-- digit, with no sort). One pass over the parts, not one per window and one for the GPU.
figures as (
    select
        provider, region, instance_type, any_value(as_of) as as_of,
        any_value(gpu_name) as gpu_name, any_value(gpu_memory_gib) as gpu_memory_gib,
        any_value(gpu_count) as gpu_count,
        min(lowest) filter (where in_7d) as min_usd_per_hour_7d,
        max(highest) filter (where in_7d) as max_usd_per_hour_7d,
        cast(coalesce(sum(n) filter (where in_7d), 0) as bigint) as points_7d,
        sum(s1) filter (where in_7d) as s1_7d, sum(s2) filter (where in_7d) as s2_7d,
        min(lowest) filter (where in_30d) as min_usd_per_hour_30d,
        max(highest) filter (where in_30d) as max_usd_per_hour_30d,
        cast(coalesce(sum(n) filter (where in_30d), 0) as bigint) as points_30d,
        sum(s1) filter (where in_30d) as s1_30d, sum(s2) filter (where in_30d) as s2_30d,
        min(lowest) filter (where in_90d) as min_usd_per_hour_90d,
        max(highest) filter (where in_90d) as max_usd_per_hour_90d,
        cast(coalesce(sum(n) filter (where in_90d), 0) as bigint) as points_90d,
        sum(s1) filter (where in_90d) as s1_90d, sum(s2) filter (where in_90d) as s2_90d
    from window_rows
    group by provider, region, instance_type
),

-- each window's median and 95th percentile (DuckDB's quantile_cont) over its prices
quantiles as (
    select
        provider, region, instance_type,
        quantile_cont(price_usd_per_hour, [0.5, 0.95]) filter (where in_7d) as q_7d,
        quantile_cont(price_usd_per_hour, [0.5, 0.95]) filter (where in_30d) as q_30d,
        quantile_cont(price_usd_per_hour, [0.5, 0.95]) filter (where in_90d) as q_90d
    from (
        select
            provider, region, instance_type, price_usd_per_hour,
            observed_at >= opens_7d as in_7d, observed_at >= opens_30d as in_30d,
            observed_at >= opens_90d as in_90d
        from points
        where observed_at >= opens_90d
        union all by name
        select
            provider, region, instance_type, price_usd_per_hour, days = 7 as in_7d,
            days = 30 as in_30d, days = 90 as in_90d
        from opening_price
    )
    group by provider, region, instance_type
),

stats as (
    select
        f.provider, f.region, f.instance_type, f.as_of, f.gpu_name, f.gpu_memory_gib,
        f.gpu_count,
        f.min_usd_per_hour_7d, q.q_7d, f.max_usd_per_hour_7d,
        case when f.points_7d > 1 then sqrt(cast(f.points_7d * f.s2_7d - f.s1_7d * f.s1_7d as double)
            / (f.points_7d * (f.points_7d - 1))) / 1e9 end as stddev_usd_per_hour_7d, f.points_7d,
        f.min_usd_per_hour_30d, q.q_30d, f.max_usd_per_hour_30d,
        case when f.points_30d > 1 then sqrt(cast(f.points_30d * f.s2_30d - f.s1_30d * f.s1_30d as double)
            / (f.points_30d * (f.points_30d - 1))) / 1e9 end as stddev_usd_per_hour_30d,
        f.points_30d,
        f.min_usd_per_hour_90d, q.q_90d, f.max_usd_per_hour_90d,
        case when f.points_90d > 1 then sqrt(cast(f.points_90d * f.s2_90d - f.s1_90d * f.s1_90d as double)
            / (f.points_90d * (f.points_90d - 1))) / 1e9 end as stddev_usd_per_hour_90d,
        f.points_90d
    from figures f
    left join quantiles q using (provider, region, instance_type)
),

-- each (provider, region, instance type)'s cheapest current spot offer (any zone), how
-- many zones offer it, and the on-demand price its offers are compared with (the one
-- pairing rule, int_offer_pairs: same provider, region and instance type, same zone where
-- both are zonal), in one pass over both
offers_now as (
    select
        provider, region, instance_type,
        min(price_usd_per_hour) filter (where is_spot) as spot_usd_per_hour_now,
        nullif(count(*) filter (where is_spot), 0) as zones_now,
        min(on_demand_usd_per_hour) as on_demand_usd_per_hour
    from (
        select provider, region, instance_type, price_usd_per_hour, true as is_spot
        from mart_gpu_offers_current
        where pricing_model = 'spot' and is_verified
        union all by name
        select provider, region, instance_type, on_demand_usd_per_hour, false as is_spot
        from int_offer_pairs
        where pricing_model = 'spot' and is_verified
    )
    group by provider, region, instance_type
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
    c.spot_usd_per_hour_now, c.zones_now, c.on_demand_usd_per_hour,
    100 * (1 - c.spot_usd_per_hour_now / c.on_demand_usd_per_hour) as spot_discount_pct,
    i.interruption_bucket, i.interruption_rate_max_pct, i.advisor_savings_pct
from stats s
left join offers_now c using (provider, region, instance_type)
left join interruptions i using (provider, region, instance_type)
