-- Usable offers (int_offers_usable) in the one cheapest-first order every ranking uses:
-- per-GPU-hour price, then provider, region, zone (none first), instance type (then the
-- GPU, pricing model and variant, so the order is total and a refresh deterministic).
-- cheapest_order numbers all usable offers in that order; a ranking over any group orders
-- by it. price_rank = 1 is the cheapest offer of its GPU (name x memory) x pricing model;
-- `offers` counts the offers in that group.
with ordered as (
    select
        *,
        row_number() over (
            order by price_usd_per_gpu_hour, provider, region, zone nulls first, instance_type,
                     gpu_name, gpu_memory_gib, pricing_model, pricing_detail nulls first
        ) as cheapest_order
    from int_offers_usable
)

select
    *,
    row_number() over (
        partition by gpu_name, gpu_memory_gib, pricing_model order by cheapest_order
    ) as price_rank,
    count(*) over (partition by gpu_name, gpu_memory_gib, pricing_model) as offers
from ordered
