-- The latest price of every offer: provider x region x zone x instance_type x pricing_model.
-- Where a pricing model has several variants (reservation upfront options, RunPod
-- secure/community) the cheapest is shown and pricing_detail names it.
-- Two rules have their one home here, as columns every consumer filters on:
-- * is_verified: the provenance counts by default (int_provenances);
-- * is_comparable: a priced machine with a known GPU, so its per-GPU-hour rate can be
--   ranked against others (an accelerator-only price, host_included = false, is not a
--   machine anyone can run: its host is billed apart).
-- int_offers_usable keeps the rows with both.
with open_prices as (
    select * from int_offers_historized where valid_to is null
),

ranked as (
    select
        *,
        row_number() over (
            partition by provider, region, zone, instance_type, pricing_model
            order by price_usd_per_hour, pricing_detail nulls first
        ) as variant_rank
    from open_prices
),

provenances as (
    select * from int_provenances
)

select
    r.provider, r.region, r.zone, r.instance_type, r.gpu_name, r.gpu_memory_gib, r.gpu_count,
    r.vcpus, r.memory_gib, r.pricing_model, r.pricing_detail, r.price_usd_per_hour,
    r.price_usd_per_gpu_hour, r.price_flag,
    coalesce(r.host_included, true) as host_included,
    coalesce(r.provenance, 'api') as provenance,
    coalesce(p.is_verified, false) as is_verified,
    r.gpu_name is not null and r.price_usd_per_gpu_hour is not null
        and coalesce(r.host_included, true) as is_comparable,
    r.effective_at, r.fetched_at, r.load_id, r.connector
from ranked r
left join provenances p on p.provenance = coalesce(r.provenance, 'api')
where r.variant_rank = 1
