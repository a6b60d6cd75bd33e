-- Reserved vs on-demand for every offer priced both ways (int_offer_pairs, the one
-- pairing rule: same provider, region, instance type, and zone where both have one;
-- verified prices only). A commitment bills every hour of its term, used or not; on-demand bills
-- the hours used. At utilisation u the on-demand cost per committed hour is u * on_demand,
-- so the commitment pays above (models/breakeven.py reserved)
--   break_even_utilization = reserved_effective_usd_per_hour / on_demand_usd_per_hour.
-- reserved prices are effective hourly rates with any upfront payment amortised over the
-- term. A value >= 1 means the commitment never pays.
with paired as (
    select
        provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
        pricing_model as term,
        pricing_detail,
        on_demand_zone,
        price_usd_per_hour as reserved_effective_usd_per_hour,
        on_demand_usd_per_hour,
        price_usd_per_gpu_hour as reserved_effective_usd_per_gpu_hour,
        on_demand_usd_per_gpu_hour,
        fetched_at as reserved_fetched_at, on_demand_fetched_at,
        load_id as reserved_load_id, on_demand_load_id
    from int_offer_pairs
    where pricing_model in ('reserved_1y', 'reserved_3y') and is_verified
),

break_even as (
    select
        *,
        reserved_effective_usd_per_hour / on_demand_usd_per_hour as break_even_utilization
    from paired
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    term, pricing_detail, on_demand_zone,
    reserved_effective_usd_per_hour, on_demand_usd_per_hour,
    reserved_effective_usd_per_gpu_hour, on_demand_usd_per_gpu_hour,
    break_even_utilization,
    1 - break_even_utilization as savings_at_full_use,
    break_even_utilization < 1 as commitment_can_pay,
    reserved_fetched_at, on_demand_fetched_at, reserved_load_id, on_demand_load_id
from break_even
