-- One staged spot price point per region x zone x instance type x time (the parse
-- deduplicates repeats across incremental walks; the table has no key index, for speed).
select region, zone, instance_type, observed_at, count(*) as n
from stg_aws__spot_prices
group by all
having count(*) > 1
