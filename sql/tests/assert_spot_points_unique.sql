-- One staged spot price point per region x zone x instance type x time. Kept at insert
-- (the parse deduplicates a batch; a refresh adds only the points whose key is not stored
-- yet); checked here for the points of the checked loads (checked_load: a refresh's own,
-- every load in a full check) against every stored point: a point that repeats a stored
-- one is found without grouping all history.
with checked as (
    select region, zone, instance_type, observed_at
    from stg_aws__spot_prices
    where checked_load(load_id)
)

-- (`=`, the columns are NOT NULL: DuckDB then skips the stored row groups outside the
-- checked points' times, which a null-safe comparison does not)
select t.region, t.zone, t.instance_type, t.observed_at, count(*) as n
from stg_aws__spot_prices t
semi join checked c
    on t.region = c.region and t.zone = c.zone and t.instance_type = c.instance_type
   and t.observed_at = c.observed_at
group by all
having count(*) > 1
