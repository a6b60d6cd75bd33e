-- One staged offer per offer key (provider x region x zone x instance_type x pricing_model x
-- pricing_detail) across the staging tables. The history merge relies on it; the current
-- layer's row_number() = 1 would hide a duplicate, so it is checked here, before it.
select provider, region, zone, instance_type, pricing_model, pricing_detail, count(*) as n
from int_offers_unioned
group by all
having count(*) > 1
