-- breakeven_onprem(utilization, usd_per_kwh, power_kw, residual_fraction):
-- mart_breakeven_onprem with power and resale value (models/breakeven.py onprem):
--   power_usd_per_hour   = power_kw * usd_per_kwh   (power_kw null = the GPU's TDP from dim_gpus)
--   break_even_gpu_hours = capex_usd * (1 - residual_fraction)
--                          / (on_demand_usd_per_gpu_hour - power_usd_per_hour)
--   break_even_months    = break_even_gpu_hours / (utilization * 720)   (720 h = 30 days)
-- Where power costs at least the rental rate, owning never breaks even: the hours are null
-- and owning_breaks_even is false.
--   select * from breakeven_onprem(utilization := 0.5, usd_per_kwh := 0.10);
-- No column of this body or of the views it reads may be named like a parameter: DuckDB
-- (2.0) substitutes the argument for such a name, or refuses the macro.
CREATE OR REPLACE MACRO breakeven_onprem(
    utilization := 1.0, usd_per_kwh := 0.0, power_kw := NULL, residual_fraction := 0.0
) AS TABLE
with assumptions as (
    select
        case
            when utilization::double > 0 and utilization::double <= 1 then utilization::double
            else error('breakeven_onprem: utilization must be in (0, 1], got '
                       || utilization::varchar)
        end as utilization_assumed,
        case
            when usd_per_kwh::double >= 0 then usd_per_kwh::double
            else error('breakeven_onprem: usd_per_kwh must be >= 0, got ' || usd_per_kwh::varchar)
        end as usd_per_kwh_assumed,
        case
            when power_kw is null or power_kw::double >= 0 then power_kw::double
            else error('breakeven_onprem: power_kw must be >= 0, got ' || power_kw::varchar)
        end as power_kw_given,
        case
            when residual_fraction::double >= 0 and residual_fraction::double < 1
                then residual_fraction::double
            else error('breakeven_onprem: residual_fraction must be in [0, 1), got '
                       || residual_fraction::varchar)
        end as residual_fraction_assumed
),

gpus as (
    select
        gpu_name, gpu_memory_gib, capex_usd, on_demand_usd_per_gpu_hour, provider, region,
        zone, instance_type, tdp_watts, hours_per_month as month_hours, fetched_at, load_id
    from mart_breakeven_onprem
),

costs as (
    select
        g.*, a.*,
        coalesce(a.power_kw_given, g.tdp_watts / 1000.0) as power_kw_used,
        g.capex_usd * a.residual_fraction_assumed as residual_value_usd
    from gpus g
    cross join assumptions a
),

savings as (
    select
        *,
        power_kw_used * usd_per_kwh_assumed as power_usd_per_hour,
        on_demand_usd_per_gpu_hour - power_kw_used * usd_per_kwh_assumed as saved_usd_per_hour
    from costs
),

break_even as (
    select
        *,
        case
            when saved_usd_per_hour > 0
                then (capex_usd - residual_value_usd) / saved_usd_per_hour
        end as break_even_gpu_hours
    from savings
)

select
    gpu_name, gpu_memory_gib, capex_usd, residual_value_usd, on_demand_usd_per_gpu_hour,
    provider, region, zone, instance_type,
    utilization_assumed as utilization,
    power_kw_used as power_kw,
    usd_per_kwh_assumed as usd_per_kwh,
    power_usd_per_hour, saved_usd_per_hour,
    break_even_gpu_hours,
    break_even_gpu_hours / (utilization_assumed * month_hours) as break_even_months,
    case
        when capex_usd is null or on_demand_usd_per_gpu_hour is null then null
        else saved_usd_per_hour > 0
    end as owning_breaks_even,
    month_hours as hours_per_month,
    fetched_at, load_id
from break_even
