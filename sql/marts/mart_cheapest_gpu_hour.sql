-- Per GPU (name x memory) and pricing model: the cheapest per-GPU-hour offer now, and the
-- median across providers of each provider's cheapest offer (the median alone would hide
-- the cheapest; the cheapest alone can be a one-off).
with priced as (
    select * from mart_gpu_offers_current
    where gpu_name is not null and price_usd_per_gpu_hour is not null
),

cheapest_per_provider as (
    select gpu_name, gpu_memory_gib, pricing_model, provider,
           min(price_usd_per_gpu_hour) as provider_min_usd_per_gpu_hour
    from priced
    group by all
),

cheapest as (
    select
        gpu_name, gpu_memory_gib, pricing_model,
        min(price_usd_per_gpu_hour) as price_usd_per_gpu_hour,
        arg_min(provider, price_usd_per_gpu_hour) as provider,
        arg_min(region, price_usd_per_gpu_hour) as region,
        arg_min(instance_type, price_usd_per_gpu_hour) as instance_type,
        arg_min(load_id, price_usd_per_gpu_hour) as load_id,
        count(*) as offers
    from priced
    group by all
),

across_providers as (
    select gpu_name, gpu_memory_gib, pricing_model,
           median(provider_min_usd_per_gpu_hour) as median_provider_usd_per_gpu_hour,
           count(*) as providers
    from cheapest_per_provider
    group by all
)

select c.*, a.median_provider_usd_per_gpu_hour, a.providers
from cheapest c
join across_providers a using (gpu_name, gpu_memory_gib, pricing_model)
