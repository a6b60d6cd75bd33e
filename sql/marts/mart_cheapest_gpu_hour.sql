-- Per GPU (name x memory) and pricing model: the cheapest per-GPU-hour offer now, and the
-- median across providers of each provider's cheapest offer (the median alone would hide
-- the cheapest; the cheapest alone can be a one-off).
-- Only usable offers (int_offers_usable: verified provenance, whole machines), ranked by
-- the one cheapest-first rule (int_offers_ranked).
-- (read where each step needs it, not held whole between them: the rank-1 offers are a
-- few rows of the ranking)
with ranked as not materialized (
    select * from int_offers_ranked
),

cheapest_per_provider as (
    select gpu_name, gpu_memory_gib, pricing_model, provider,
           min(price_usd_per_gpu_hour) as provider_min_usd_per_gpu_hour
    from ranked
    group by all
),

cheapest as (
    select
        gpu_name, gpu_memory_gib, pricing_model, price_usd_per_gpu_hour, provider, region,
        zone, instance_type, pricing_detail, load_id, offers
    from ranked
    where price_rank = 1
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
