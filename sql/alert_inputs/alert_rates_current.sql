-- The cheapest current per-GPU-hour rate per GPU x pricing model x provider x region: what
-- the price-level and spot-ratio rules and the workload budgets compare. Each rule keeps
-- the rows it matches (GPU, memory, pricing model, providers) and takes the cheapest.
-- Only usable offers (int_offers_usable): an illustrative price never trips a rule or a
-- budget, and a GPU-only price (host billed apart) is not a rate anyone pays.
with priced as (
    select * from int_offers_usable
),

ranked as (
    select
        *,
        row_number() over (
            partition by gpu_name, gpu_memory_gib, pricing_model, provider, region
            order by price_usd_per_gpu_hour, zone nulls first, instance_type
        ) as price_rank
    from priced
)

select
    gpu_name, gpu_memory_gib, pricing_model, provider, region, zone, instance_type,
    price_usd_per_gpu_hour, fetched_at, load_id
from ranked
where price_rank = 1
