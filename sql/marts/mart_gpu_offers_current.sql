-- The latest price of every offer: provider x region x zone x instance_type x pricing_model
-- (int_offers_current). `provenance` says where the price comes from and `is_verified`
-- whether it counts by default (int_provenances); `is_comparable` whether its per-GPU-hour
-- rate can be ranked (a known GPU and a whole machine). Rankings read int_offers_usable.
-- source_effective_at: the date the source states for the price (null where it states
-- none); first_seen_at: the fetch that first saw this price (int_offers_current).
with current_offers as (
    select * from int_offers_current
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    vcpus, memory_gib, pricing_model, pricing_detail, price_usd_per_hour,
    price_usd_per_gpu_hour, price_flag, host_included, provenance, is_verified, is_comparable,
    source_effective_at, first_seen_at, effective_at, fetched_at, load_id
from current_offers
