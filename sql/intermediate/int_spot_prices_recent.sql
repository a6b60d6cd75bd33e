-- The time-series spot points the spot statistics read (int_spot_prices_unioned's columns
-- but the load and the per-GPU price, which they do not read): every point from the provider's cutoff on, and each series' last point before
-- it (the price it had then). The refresh keeps the cutoff at or before the longest
-- statistics window's opening and lists those last points (_spot_cutoffs, _spot_openings:
-- warehouse/spot_openings.py), so the statistics read the last 90 days and one point per
-- series, not a year of history. A provider without a cutoff (a warehouse written before
-- them) is read whole.
-- (int_spot_prices_unioned is named in each branch, not in a shared CTE: DuckDB would
-- hold a CTE read twice, the year of points with it; and its common-subplan optimizer,
-- which would do the same of the two branches, is off on every warehouse connection:
-- warehouse/db.py)
with cutoffs as (
    select provider, cutoff from _spot_cutoffs
),

-- the providers whose cutoff is later than the earliest one (none when every provider's
-- cutoff is the same, as with one time-series provider): their points are read by a
-- branch of their own, so the others' need no per-provider test (at a year of AWS spot
-- history a join with the cutoffs and a filter for each of the 2.16M points, twice a
-- night; DuckDB reads nothing for a branch joined to no row)
later_cutoffs as (
    select provider, cutoff from cutoffs where cutoff > (select min(cutoff) from cutoffs)
)

-- the first bound of each branch is the same for every provider in it: DuckDB skips the
-- older row groups by it
select
    s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s
where s.observed_at >= (select coalesce(min(cutoff), '-infinity'::timestamp) from cutoffs)
  and not exists (select 1 from later_cutoffs l where l.provider = s.provider)
union all
select
    s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s
join later_cutoffs l on l.provider = s.provider
where s.observed_at >= (select min(cutoff) from later_cutoffs) and s.observed_at >= l.cutoff
union all
select
    s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s
semi join _spot_openings o
    on s.provider = o.provider and s.region is not distinct from o.region
   and s.zone is not distinct from o.zone
   and s.instance_type is not distinct from o.instance_type and s.observed_at = o.observed_at
