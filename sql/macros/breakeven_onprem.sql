-- breakeven_onprem(utilization, usd_per_kwh, power_kw, residual_fraction, pue, host_kw,
-- host_fraction, ops_fraction): buy vs rent per GPU (name x memory) with the whole cost of
-- owning, the one SQL definition (mart_breakeven_onprem is this macro at its defaults;
-- models.breakeven.onprem is the same formula for one GPU). The reference purchase price
-- (dim_gpus) against the cheapest verified whole-machine on-demand offer of the GPU's
-- default form factor (dim_gpu_variants: H100 = SXM), no marketplace listing
-- (seed_provider_classes):
--   host_capex_usd       = capex_usd * host_fraction
--   power_usd_per_hour   = (power_kw + host_kw) * pue * usd_per_kwh
--   ops_usd_per_year     = ops_fraction * (capex_usd + host_capex_usd)
--   ops_usd_per_hour     = ops_usd_per_year / (hours_per_year * utilization)
--   break_even_gpu_hours = (capex_usd + host_capex_usd - residual)
--                          / (on_demand_usd_per_gpu_hour - power_usd_per_hour - ops_usd_per_hour)
--   break_even_months    = break_even_gpu_hours / (utilization * hours_per_month)
-- A null argument takes its stated default from seed_conventions (power_usd_per_kwh 0.10,
-- pue 1.56, host_watts_per_gpu 575, host_capex_share 0.25, ops_share_of_capex_per_year
-- 0.10; sources in sql/seeds/README.md); power_kw null = the GPU's TDP. Where running an
-- owned GPU costs at least the rental rate, owning never breaks even: the hours are null
-- and owning_breaks_even is false. A GPU with no reference price or no offer keeps its row.
--   select * from breakeven_onprem(utilization := 0.5, usd_per_kwh := 0.12);
-- No column of this body or of the views it reads may be named like a parameter: DuckDB
-- (2.0) substitutes the argument for such a name, or refuses the macro.
CREATE OR REPLACE MACRO breakeven_onprem(
    utilization := 1.0, usd_per_kwh := NULL, power_kw := NULL, residual_fraction := 0.0,
    pue := NULL, host_kw := NULL, host_fraction := NULL, ops_fraction := NULL
) AS TABLE
with conventions as (
    select * from seed_conventions
),

assumptions as (
    select
        case
            when utilization::double > 0 and utilization::double <= 1 then utilization::double
            else error('breakeven_onprem: utilization must be in (0, 1], got '
                       || utilization::varchar)
        end as utilization_assumed,
        case
            when usd_per_kwh is null then c.power_usd_per_kwh
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
        case
            when pue is null then c.pue
            when pue::double >= 1 then pue::double
            else error('breakeven_onprem: pue must be >= 1, got ' || pue::varchar)
        end as pue_assumed,
        case
            when host_kw is null then c.host_watts_per_gpu / 1000.0
            when host_kw::double >= 0 then host_kw::double
            else error('breakeven_onprem: host_kw must be >= 0, got ' || host_kw::varchar)
        end as host_kw_assumed,
        case
            when host_fraction is null then c.host_capex_share
            when host_fraction::double >= 0 then host_fraction::double
            else error('breakeven_onprem: host_fraction must be >= 0, got '
                       || host_fraction::varchar)
        end as host_fraction_assumed,
        case
            when ops_fraction is null then c.ops_share_of_capex_per_year
            when ops_fraction::double >= 0 then ops_fraction::double
            else error('breakeven_onprem: ops_fraction must be >= 0, got '
                       || ops_fraction::varchar)
        end as ops_fraction_assumed,
        c.hours_per_month as month_hours,
        c.hours_per_year as year_hours
    from conventions c
),

capex as (
    select gpu_name, gpu_memory_gib, capex_usd, capex_as_of, capex_source, tdp_watts
    from dim_gpus
),

default_forms as (
    select gpu_name, gpu_memory_gib, gpu_variant
    from dim_gpu_variants
    where is_default_variant
),

classes as (
    select provider, provider_class from seed_provider_classes
),

cheapest_on_demand as (
    select
        o.gpu_name, o.gpu_memory_gib, o.gpu_variant, o.price_usd_per_gpu_hour, o.provider,
        o.region, o.zone, o.instance_type, o.fetched_at, o.load_id
    from int_offers_usable o  -- verified, whole machines
    join default_forms f using (gpu_name, gpu_memory_gib, gpu_variant)
    left join classes k on k.provider = o.provider
    where o.pricing_model = 'on_demand' and k.provider_class is distinct from 'marketplace'
    qualify row_number() over (
        partition by o.gpu_name, o.gpu_memory_gib order by o.cheapest_order
    ) = 1
),

gpus as (
    select
        coalesce(c.gpu_name, o.gpu_name) as gpu_name,
        coalesce(c.gpu_memory_gib, o.gpu_memory_gib) as gpu_memory_gib,
        c.capex_usd, c.capex_as_of, c.capex_source, c.tdp_watts, o.gpu_variant,
        o.price_usd_per_gpu_hour as on_demand_usd_per_gpu_hour,
        o.provider, o.region, o.zone, o.instance_type, o.fetched_at, o.load_id
    from capex c
    full outer join cheapest_on_demand o using (gpu_name, gpu_memory_gib)
),

costs as (
    select
        g.*, a.*,
        coalesce(a.power_kw_given, g.tdp_watts / 1000.0) as power_kw_used,
        g.capex_usd * a.host_fraction_assumed as host_capex,
        g.capex_usd * a.residual_fraction_assumed as residual_value_usd
    from gpus g
    cross join assumptions a
),

running as (
    select
        *,
        (power_kw_used + host_kw_assumed) * pue_assumed * usd_per_kwh_assumed
            as power_usd_per_hour,
        ops_fraction_assumed * (capex_usd + host_capex) as ops_usd_per_year,
        ops_fraction_assumed * (capex_usd + host_capex) / (year_hours * utilization_assumed)
            as ops_usd_per_hour
    from costs
),

break_even as (
    select
        *,
        on_demand_usd_per_gpu_hour - power_usd_per_hour - ops_usd_per_hour as saved_usd_per_hour,
        case
            when on_demand_usd_per_gpu_hour - power_usd_per_hour - ops_usd_per_hour > 0
                then (capex_usd + host_capex - residual_value_usd)
                     / (on_demand_usd_per_gpu_hour - power_usd_per_hour - ops_usd_per_hour)
        end as break_even_gpu_hours
    from running
)

select
    gpu_name, gpu_memory_gib, gpu_variant, capex_usd, capex_as_of, capex_source,
    host_capex as host_capex_usd, residual_value_usd,
    on_demand_usd_per_gpu_hour, provider, region, zone, instance_type,
    utilization_assumed as utilization,
    power_kw_used as power_kw,
    host_kw_assumed as host_kw,
    pue_assumed as pue,
    usd_per_kwh_assumed as usd_per_kwh,
    power_usd_per_hour, ops_usd_per_year, ops_usd_per_hour, saved_usd_per_hour,
    break_even_gpu_hours,
    break_even_gpu_hours / (utilization_assumed * month_hours) as break_even_months,
    case
        when capex_usd is null or on_demand_usd_per_gpu_hour is null then null
        else saved_usd_per_hour > 0
    end as owning_breaks_even,
    month_hours as hours_per_month,
    tdp_watts, fetched_at, load_id
from break_even
