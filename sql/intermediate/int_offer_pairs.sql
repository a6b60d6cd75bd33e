-- Every current spot or reserved offer next to the on-demand price it is compared with:
-- the ONE pairing rule of the warehouse, read by mart_spot_on_demand_pairs (and so
-- mart_spot_breakeven, the spot_breakeven(...) macro and `breakeven spot`),
-- mart_reserved_breakeven, the spot-above-on-demand flag of mart_gpu_offers_current and
-- its assertion.
-- Like for like: the same provider, region and instance type; where both prices are per
-- zone, the same zone; where one of them is regional, the regional price (a zonal spot
-- price against the region's on-demand list price). Several candidates (a regional spot
-- price against zonal on-demand prices): the same zone first, then the cheapest.
-- is_verified: both prices count by default (int_provenances).
with offers as not materialized (
    select * from int_offers_current
),

others as (
    select * from offers where pricing_model <> 'on_demand'
),

on_demand as (
    select * from offers where pricing_model = 'on_demand'
),

-- where each instance type has an on-demand price: its zones priced, whether it has a
-- regional price, and the cheapest zone (then the first zone) of its zonal ones
on_demand_zones as (
    select
        provider, region, instance_type,
        list(zone) filter (where zone is not null) as zones,
        bool_or(zone is null) as has_regional,
        arg_min(zone, {'price': price_usd_per_hour, 'zone': zone}) filter (where zone is not null)
            as cheapest_zone
    from on_demand
    group by all
),

paired as (
    select
        o.provider, o.region, o.zone, o.instance_type, o.pricing_model, o.pricing_detail,
        o.gpu_name, o.gpu_memory_gib, o.gpu_count,
        o.price_usd_per_hour, o.price_usd_per_gpu_hour,
        d.zone as on_demand_zone,
        d.price_usd_per_hour as on_demand_usd_per_hour,
        d.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        o.is_verified and d.is_verified as is_verified,
        o.provenance, d.provenance as on_demand_provenance,
        o.fetched_at, d.fetched_at as on_demand_fetched_at,
        o.load_id, d.load_id as on_demand_load_id
    from others o
    join on_demand_zones z
      on z.provider = o.provider and z.region = o.region and z.instance_type = o.instance_type
    join on_demand d
      on d.provider = o.provider and d.region = o.region and d.instance_type = o.instance_type
     and d.zone is not distinct from (
         case
             when list_contains(z.zones, o.zone) then o.zone
             when z.has_regional then null
             when o.zone is null then z.cheapest_zone
         end
     )
)

select
    *,
    case
        when pricing_model = 'spot' and price_usd_per_hour > on_demand_usd_per_hour
            then 'spot_above_on_demand'
        when pricing_model = 'spot' and price_usd_per_hour = on_demand_usd_per_hour
            then 'spot_equals_on_demand'
    end as pair_flag
from paired
