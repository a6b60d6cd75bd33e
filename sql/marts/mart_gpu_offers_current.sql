-- The latest price of every offer: provider x region x zone x instance_type x pricing_model
-- (int_offers_current). `provenance` says where the price comes from and `is_verified`
-- whether it counts by default (int_provenances); `is_comparable` whether its per-GPU-hour
-- rate can be ranked (a known GPU and a whole machine). Rankings read int_offers_usable;
-- `is_usable` says, stored with each row, whether the offer is among them (membership of
-- int_offers_usable, its one home), so a read of this table (`rates`, `estimate`) need not
-- compute the offer stack again.
-- source_effective_at: the date the source states for the price (null where it states
-- none); first_seen_at: the fetch that first saw this price (int_offers_current).
-- price_flag: a market anomaly, a spot price at or above the on-demand price it pairs
-- with (int_offer_pairs: same provider, region, instance type, and zone where both have
-- one): kept, because that is what the source says, but flagged.
with current_offers as (
    select * from int_offers_current
),

-- only the pairs that flag their offer: any other pair leaves the offer's own price_flag
-- (a few rows to match instead of every spot and reserved offer)
pairs as (
    select provider, region, zone, instance_type, pricing_model, pair_flag
    from int_offer_pairs
    where pair_flag is not null
),

usable as (
    select cheapest_order from int_offers_usable
)

select
    o.provider, o.region, o.zone, o.instance_type, o.gpu_name, o.gpu_memory_gib, o.gpu_count,
    o.gpu_variant,
    o.vcpus, o.memory_gib, o.pricing_model, o.pricing_detail, o.price_usd_per_hour,
    o.price_usd_per_gpu_hour, coalesce(p.pair_flag, o.price_flag) as price_flag,
    o.host_included, o.capacity_instances, o.provenance, o.is_verified, o.is_comparable,
    o.source_effective_at, o.first_seen_at, o.effective_at, o.fetched_at, o.load_id,
    o.cheapest_order, u.cheapest_order is not null as is_usable
from current_offers o
left join usable u on u.cheapest_order = o.cheapest_order
left join pairs p
  on p.provider = o.provider and p.region = o.region
 and p.zone is not distinct from o.zone
 and p.instance_type = o.instance_type and p.pricing_model = o.pricing_model
