-- The latest price of every offer: provider x region x zone x instance_type x pricing_model.
-- Where a pricing model has several variants (reservation upfront options, RunPod
-- secure/community) the cheapest is shown and pricing_detail names it.
with open_prices as (
    select * from fct_gpu_prices where valid_to is null
),

ranked as (
    select
        *,
        row_number() over (
            partition by provider, region, zone, instance_type, pricing_model
            order by price_usd_per_hour, pricing_detail nulls first
        ) as variant_rank
    from open_prices
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    vcpus, memory_gib, pricing_model, pricing_detail, price_usd_per_hour,
    price_usd_per_gpu_hour, price_flag, coalesce(host_included, true) as host_included,
    effective_at, fetched_at, load_id
from ranked
where variant_rank = 1
