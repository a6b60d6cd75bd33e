-- A spot price at or above the on-demand price it pairs with (int_offer_pairs, the one
-- pairing rule) must carry a flag in mart_gpu_offers_current.
with pairs as (
    select * from int_offer_pairs
    where pricing_model = 'spot' and price_usd_per_hour >= on_demand_usd_per_hour
)

select p.*, m.price_flag
from pairs p
join mart_gpu_offers_current m
  on m.provider = p.provider and m.region = p.region
 and m.zone is not distinct from p.zone
 and m.instance_type = p.instance_type and m.pricing_model = 'spot'
where m.price_flag is null
