-- Spot interruption-frequency buckets as an hourly preemption rate. The AWS Spot Instance
-- Advisor (connectors/aws, mart_spot_price_stats.interruption_bucket) labels each region x
-- instance type with the share f of its spot instances interrupted over the trailing month.
-- With a constant per-hour hazard p an instance survives a month of H hours
-- (seed_conventions.hours_per_month, 720) with probability exp(-H p) = 1 - f, so
--   preemption_rate_per_hour p = -ln(1 - f) / H.
-- f is the bucket's UPPER bound ('5-10%' -> 0.10): effective spot costs built on it are
-- upper estimates, so spot is never called cheaper on an optimistic rate (the midpoint would
-- be the better point estimate, but the label only bounds f and the rates are tiny against
-- typical break-even rates anyway: f = 0.20 gives p = 0.00031 per hour, spot 1.5 vs
-- on-demand 4.0 breaks even at 1.21). '>20%' has no upper bound (the Advisor's 'max' for it
-- is 100%, i.e. p infinite): it uses its lower bound 0.20, flagged by
-- interruption_rate_is_lower_bound. p is per instance; a job spanning k instances stops
-- when any of them is reclaimed, about k * p.
with buckets as (
    select *
    from (values
        ('<5%', 0.00::double, 0.05::double),
        ('5-10%', 0.05, 0.10),
        ('10-15%', 0.10, 0.15),
        ('15-20%', 0.15, 0.20),
        ('>20%', 0.20, null)
    ) as b(interruption_bucket, interruption_fraction_low, interruption_fraction_high)
),

fraction_used as (
    select
        *,
        coalesce(interruption_fraction_high, interruption_fraction_low)
            as interruption_fraction_per_month,
        interruption_fraction_high is null as interruption_rate_is_lower_bound
    from buckets
)

select
    interruption_bucket, interruption_fraction_low, interruption_fraction_high,
    interruption_fraction_per_month, interruption_rate_is_lower_bound,
    -ln(1 - interruption_fraction_per_month) / c.hours_per_month as preemption_rate_per_hour
from fraction_used
cross join seed_conventions c
