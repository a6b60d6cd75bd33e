-- Usable offers (int_offers_usable) ranked cheapest first within each GPU (name x memory)
-- x pricing model. The one tie-break every ranking uses: per-GPU-hour price, then
-- provider, region, zone (none first), instance type, so every "cheapest" picks the same
-- row and a refresh is deterministic. price_rank = 1 is the cheapest offer; `offers`
-- counts the offers in the group. A ranking over a narrower group (one provider and
-- region, say) orders by price_rank: within the group that is the same order.
select
    *,
    row_number() over (
        partition by gpu_name, gpu_memory_gib, pricing_model
        order by price_usd_per_gpu_hour, provider, region, zone nulls first, instance_type
    ) as price_rank,
    count(*) over (partition by gpu_name, gpu_memory_gib, pricing_model) as offers
from int_offers_usable
