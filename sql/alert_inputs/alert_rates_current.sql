-- The cheapest current per-GPU-hour rate per GPU x pricing model x provider x region: what
-- the price-level and spot-ratio rules and the workload budgets compare. Each rule keeps
-- the rows it matches (GPU, memory, pricing model, providers) and takes the cheapest.
-- Only usable offers (int_offers_usable): an illustrative price never trips a rule or a
-- budget, and a GPU-only price (host billed apart) is not a rate anyone pays.
-- cheapest_order is the one cheapest-first order (int_offers_current, the order
-- int_offers_ranked ranks by); a rule or budget that picks the cheapest of several rows
-- orders by it. The cheapest of each group is the one of least cheapest_order (unique),
-- found by grouping the keys alone: a window carrying every column of a million offers
-- cost several times as much.
with firsts as (
    select min(cheapest_order) as cheapest_order
    from int_offers_usable
    group by gpu_name, gpu_memory_gib, pricing_model, provider, region
)

select
    r.gpu_name, r.gpu_memory_gib, r.pricing_model, r.provider, r.region, r.zone,
    r.instance_type, r.price_usd_per_gpu_hour, r.cheapest_order, r.fetched_at, r.load_id
from int_offers_usable r
semi join firsts f on f.cheapest_order = r.cheapest_order
