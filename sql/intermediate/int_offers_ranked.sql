-- Usable offers (int_offers_usable) ranked cheapest first within each GPU (name x memory)
-- x pricing model, in the one cheapest-first order (cheapest_order, int_offers_current:
-- per-GPU-hour price, then provider, region, zone with none first, instance type).
-- price_rank = 1 is the cheapest offer of its group; `offers` counts the offers in it. A
-- ranking over another group (one provider and region, say) orders by cheapest_order.
-- (numbered over the grouping and ordering columns alone, then joined back to each offer
-- by its cheapest_order, unique: a window carrying every column of a million offers costs
-- three times as much)
with ranks as (
    select
        cheapest_order,
        row_number() over (
            partition by gpu_name, gpu_memory_gib, pricing_model order by cheapest_order
        ) as price_rank,
        count(*) over (partition by gpu_name, gpu_memory_gib, pricing_model) as offers
    from int_offers_usable
)

select u.*, r.price_rank, r.offers
from int_offers_usable u
join ranks r on r.cheapest_order = u.cheapest_order
