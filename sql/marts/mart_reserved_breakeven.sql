-- Reserved vs on-demand for every offer priced both ways (same provider, region, zone,
-- instance type). A commitment bills every hour of its term, used or not; on-demand bills
-- the hours used. At utilisation u the on-demand cost per committed hour is u * on_demand,
-- so the commitment pays above (models/breakeven.py reserved)
--   break_even_utilization = reserved_effective_usd_per_hour / on_demand_usd_per_hour.
-- reserved prices are effective hourly rates with any upfront payment amortised over the
-- term (CONTRACT §4). A value >= 1 means the commitment never pays.
with reserved as (
    select * from mart_gpu_offers_current where is_verified and pricing_model in ('reserved_1y', 'reserved_3y')
),

on_demand as (
    select * from mart_gpu_offers_current where is_verified and pricing_model = 'on_demand'
),

paired as (
    select
        r.provider, r.region, r.zone, r.instance_type, r.gpu_name, r.gpu_memory_gib,
        r.gpu_count,
        r.pricing_model as term,
        r.pricing_detail,
        r.price_usd_per_hour as reserved_effective_usd_per_hour,
        d.price_usd_per_hour as on_demand_usd_per_hour,
        r.price_usd_per_gpu_hour as reserved_effective_usd_per_gpu_hour,
        d.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        r.fetched_at as reserved_fetched_at, d.fetched_at as on_demand_fetched_at,
        r.load_id as reserved_load_id, d.load_id as on_demand_load_id
    from reserved r
    join on_demand d
      on d.provider = r.provider
     and d.region = r.region
     and d.instance_type = r.instance_type
     and d.zone is not distinct from r.zone
),

break_even as (
    select
        *,
        reserved_effective_usd_per_hour / on_demand_usd_per_hour as break_even_utilization
    from paired
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    term, pricing_detail,
    reserved_effective_usd_per_hour, on_demand_usd_per_hour,
    reserved_effective_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    break_even_utilization,
    1 - break_even_utilization as savings_at_full_use,
    break_even_utilization < 1 as commitment_can_pay,
    reserved_fetched_at, on_demand_fetched_at, reserved_load_id, on_demand_load_id
from break_even
