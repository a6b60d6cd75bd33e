-- Buy vs rent per GPU (name x memory): the reference purchase price from dim_gpus against
-- the cheapest current on-demand per-GPU-hour rate, and how long owning takes to pay off
-- (models/breakeven.py onprem, no power, no residual value):
--   break_even_gpu_hours = capex_usd / rate_usd_per_gpu_hour
--   break_even_months    = break_even_gpu_hours / (utilization * 720)   (720 h = 30 days)
-- A GPU with no reference capex or no on-demand offer keeps its row with nulls. Power,
-- resale value and other utilisations: the breakeven_onprem(...) table macro.
with assumptions as (
    select 720.0::double as hours_per_month
),

capex as (
    select gpu_name, gpu_memory_gib, capex_usd, capex_as_of, capex_source, tdp_watts
    from dim_gpus
),

on_demand_ranked as (
    select
        gpu_name, gpu_memory_gib, price_usd_per_gpu_hour, provider, region, zone,
        instance_type, fetched_at, load_id,
        row_number() over (
            partition by gpu_name, gpu_memory_gib
            order by price_usd_per_gpu_hour, provider, region, zone nulls first, instance_type
        ) as price_rank
    from int_offers_usable  -- verified, whole machines
    where pricing_model = 'on_demand'
),

cheapest_on_demand as (
    select * exclude (price_rank) from on_demand_ranked where price_rank = 1
),

paired as (
    select
        coalesce(c.gpu_name, o.gpu_name) as gpu_name,
        coalesce(c.gpu_memory_gib, o.gpu_memory_gib) as gpu_memory_gib,
        c.capex_usd, c.capex_as_of, c.capex_source, c.tdp_watts,
        o.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        o.provider, o.region, o.zone, o.instance_type, o.fetched_at, o.load_id
    from capex c
    full outer join cheapest_on_demand o using (gpu_name, gpu_memory_gib)
),

break_even as (
    select
        p.*,
        a.hours_per_month,
        p.capex_usd / p.on_demand_usd_per_gpu_hour as break_even_gpu_hours
    from paired p
    cross join assumptions a
)

select
    gpu_name, gpu_memory_gib, capex_usd, capex_as_of, capex_source,
    on_demand_usd_per_gpu_hour, provider, region, zone, instance_type,
    break_even_gpu_hours,
    break_even_gpu_hours / (1.0::double * hours_per_month) as break_even_months_at_100pct,
    break_even_gpu_hours / (0.5::double * hours_per_month) as break_even_months_at_50pct,
    hours_per_month, tdp_watts, fetched_at, load_id
from break_even
