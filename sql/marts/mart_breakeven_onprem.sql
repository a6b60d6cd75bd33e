-- Buy vs rent per GPU (name x memory): the breakeven_onprem(...) table macro at its
-- defaults (the whole cost of owning at the stated defaults of seed_conventions: power at
-- 0.10 USD/kWh and PUE 1.56 for the GPU's TDP and a 575 W host, the host's price at 25% of
-- the GPU's, operations 10% of the purchase a year; no resale value), at full use and at
-- half use. The formula, and the pairing of the reference purchase price (dim_gpus) with
-- the cheapest verified whole-machine on-demand offer of the GPU's default form factor
-- (no marketplace listing), live in the macro (sql/macros/breakeven_onprem.sql).
with at_full_use as (
    select * from breakeven_onprem(utilization := 1.0)
),

at_half_use as (
    select gpu_name, gpu_memory_gib, break_even_months
    from breakeven_onprem(utilization := 0.5)
)

select
    f.gpu_name, f.gpu_memory_gib, f.gpu_variant, f.capex_usd, f.capex_as_of, f.capex_source,
    f.host_capex_usd, f.on_demand_usd_per_gpu_hour, f.provider, f.region, f.zone,
    f.instance_type, f.power_kw, f.host_kw, f.pue, f.usd_per_kwh, f.power_usd_per_hour,
    f.ops_usd_per_year, f.ops_usd_per_hour,
    f.break_even_gpu_hours,
    f.break_even_months as break_even_months_at_100pct,
    h.break_even_months as break_even_months_at_50pct,
    f.hours_per_month, f.tdp_watts, f.fetched_at, f.load_id
from at_full_use f
join at_half_use h
  on h.gpu_name = f.gpu_name and h.gpu_memory_gib is not distinct from f.gpu_memory_gib
