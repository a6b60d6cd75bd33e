-- Buy vs rent per GPU (name x memory): the breakeven_onprem(...) table macro at its
-- defaults (no power cost, no resale value), at full use and at half use. The formula and
-- the pairing of the reference purchase price (dim_gpus) with the cheapest current
-- on-demand rate live in the macro (sql/macros/breakeven_onprem.sql):
--   break_even_gpu_hours = capex_usd / on_demand_usd_per_gpu_hour
--   break_even_months    = break_even_gpu_hours / (utilization * hours_per_month)
with at_full_use as (
    select * from breakeven_onprem(utilization := 1.0)
),

at_half_use as (
    select gpu_name, gpu_memory_gib, break_even_months
    from breakeven_onprem(utilization := 0.5)
)

select
    f.gpu_name, f.gpu_memory_gib, f.capex_usd, f.capex_as_of, f.capex_source,
    f.on_demand_usd_per_gpu_hour, f.provider, f.region, f.zone, f.instance_type,
    f.break_even_gpu_hours,
    f.break_even_months as break_even_months_at_100pct,
    h.break_even_months as break_even_months_at_50pct,
    f.hours_per_month, f.tdp_watts, f.fetched_at, f.load_id
from at_full_use f
join at_half_use h
  on h.gpu_name = f.gpu_name and h.gpu_memory_gib is not distinct from f.gpu_memory_gib
