-- breakeven_onprem(utilization, usd_per_kwh, power_kw, residual_fraction): buy vs rent per
-- GPU (name x memory), the one definition (mart_breakeven_onprem is this macro at its
-- defaults). The reference purchase price (dim_gpus) against the cheapest current
-- on-demand per-GPU-hour rate (int_offers_ranked), with power and resale value:
--   power_usd_per_hour   = power_kw * usd_per_kwh   (power_kw null = the GPU's TDP from dim_gpus;
--                                                    no power cost when usd_per_kwh = 0)
--   break_even_gpu_hours = capex_usd * (1 - residual_fraction)
--                          / (on_demand_usd_per_gpu_hour - power_usd_per_hour)
--   break_even_months    = break_even_gpu_hours / (utilization * hours_per_month)
-- hours_per_month is seed_conventions' (720, 30 days). Where power costs at least the rental
-- rate, owning never breaks even: the hours are null and owning_breaks_even is false. A GPU
-- with no reference price or no on-demand offer keeps its row with nulls.
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
        end as residual_fraction_assumed,
        c.hours_per_month as month_hours
    from seed_conventions c
),

capex as (
    select gpu_name, gpu_memory_gib, capex_usd, capex_as_of, capex_source, tdp_watts
    from dim_gpus
),

cheapest_on_demand as (
    select
        gpu_name, gpu_memory_gib, price_usd_per_gpu_hour, provider, region, zone,
        instance_type, fetched_at, load_id
    from int_offers_ranked  -- verified, whole machines, cheapest first
    where pricing_model = 'on_demand' and price_rank = 1
),

gpus as (
    select
        coalesce(c.gpu_name, o.gpu_name) as gpu_name,
        coalesce(c.gpu_memory_gib, o.gpu_memory_gib) as gpu_memory_gib,
        c.capex_usd, c.capex_as_of, c.capex_source, c.tdp_watts,
        o.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        o.provider, o.region, o.zone, o.instance_type, o.fetched_at, o.load_id
    from capex c
    full outer join cheapest_on_demand o using (gpu_name, gpu_memory_gib)
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
        case
            when usd_per_kwh_assumed = 0 then 0.0
            else power_kw_used * usd_per_kwh_assumed
        end as power_usd_per_hour
    from costs
),

break_even as (
    select
        *,
        on_demand_usd_per_gpu_hour - power_usd_per_hour as saved_usd_per_hour,
        case
            when on_demand_usd_per_gpu_hour - power_usd_per_hour > 0
                then (capex_usd - residual_value_usd)
                     / (on_demand_usd_per_gpu_hour - power_usd_per_hour)
        end as break_even_gpu_hours
    from savings
)

select
    gpu_name, gpu_memory_gib, capex_usd, capex_as_of, capex_source, residual_value_usd,
    on_demand_usd_per_gpu_hour, provider, region, zone, instance_type,
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
    tdp_watts, fetched_at, load_id
from break_even
