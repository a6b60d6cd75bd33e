-- Day-over-day move of the cheapest per-GPU-hour rate, per GPU x pricing model x provider:
-- the open price periods now against the periods that were valid 24 hours before the
-- provider's newest fetch. Time is the source's (fetched_at, valid_from), so a replayed
-- snapshot compares like with like. price_day_ago is null when there is no history that
-- far back (a first refresh): no move can be measured yet.
-- Usable price periods only (int_prices_usable: verified prices of whole machines with a
-- known GPU), as the rankings read usable offers.
with prices as (
    select * from int_prices_usable
),

latest_fetch as (
    select provider, max(fetched_at) as as_of
    from prices
    where valid_to is null
    group by all
),

prices_now as (
    select gpu_name, gpu_memory_gib, pricing_model, provider,
           min(price_usd_per_gpu_hour) as price_now
    from prices
    where valid_to is null
    group by all
),

prices_day_ago as (
    select p.gpu_name, p.gpu_memory_gib, p.pricing_model, p.provider,
           min(p.price_usd_per_gpu_hour) as price_day_ago
    from prices p
    join latest_fetch l using (provider)
    where p.valid_from <= l.as_of - interval 24 hours
      and (p.valid_to is null or p.valid_to > l.as_of - interval 24 hours)
    group by all
)

select
    n.gpu_name, n.gpu_memory_gib, n.pricing_model, n.provider, n.price_now,
    d.price_day_ago, l.as_of, l.as_of - interval 24 hours as compared_with_at
from prices_now n
join latest_fetch l using (provider)
left join prices_day_ago d using (gpu_name, gpu_memory_gib, pricing_model, provider)
