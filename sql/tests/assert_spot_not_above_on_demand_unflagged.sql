-- A spot price at or above the same offer's on-demand price must carry a flag.
with spot as (
    select * from mart_gpu_offers_current where pricing_model = 'spot'
),

on_demand as (
    select provider, region, instance_type, min(price_usd_per_hour) as on_demand_usd
    from mart_gpu_offers_current where pricing_model = 'on_demand'
    group by all
)

select s.*, o.on_demand_usd
from spot s
join on_demand o using (provider, region, instance_type)
where s.price_usd_per_hour >= o.on_demand_usd and s.price_flag is null
