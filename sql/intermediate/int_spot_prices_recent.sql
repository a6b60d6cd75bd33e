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
)

select
    s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s
left join cutoffs c using (provider)
-- the first bound is the same for every provider: DuckDB skips the older row groups by it
where s.observed_at >= (select coalesce(min(cutoff), '-infinity'::timestamp) from cutoffs)
  and (c.cutoff is null or s.observed_at >= c.cutoff)
union all
select
    s.provider, s.region, s.zone, s.instance_type, s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    s.price_usd_per_hour, s.observed_at
from int_spot_prices_unioned s
semi join _spot_openings o
    on s.provider = o.provider and s.region is not distinct from o.region
   and s.zone is not distinct from o.zone
   and s.instance_type is not distinct from o.instance_type and s.observed_at = o.observed_at
