-- The cheapest current per-GPU-hour rate per GPU x pricing model x provider x region: what
-- the price-level and spot-ratio rules and the workload budgets compare. Each rule keeps
-- the rows it matches (GPU, memory, pricing model, providers) and takes the cheapest.
-- Only usable offers (int_offers_usable): an illustrative price never trips a rule or a
-- budget, and a GPU-only price (host billed apart) is not a rate anyone pays.
-- cheapest_order is the one cheapest-first order (int_offers_ranked); a rule or budget
-- that picks the cheapest of several rows orders by it.
with ranked as (
    select
        *,
        row_number() over (
            partition by gpu_name, gpu_memory_gib, pricing_model, provider, region
            order by cheapest_order
        ) as rate_rank
    from int_offers_ranked
)

select
    gpu_name, gpu_memory_gib, pricing_model, provider, region, zone, instance_type,
    price_usd_per_gpu_hour, cheapest_order, fetched_at, load_id
from ranked
where rate_rank = 1
