-- Effective-dated history of every offer: one row per price period, valid_to null = current.
with history as (
    select * from int_offers_historized
)

select
    provider, region, zone, instance_type, pricing_model, pricing_detail,
    gpu_name, gpu_memory_gib, gpu_count, vcpus, memory_gib,
    price_usd_per_hour, price_usd_per_gpu_hour, price_flag, host_included,
    valid_from, valid_to, effective_at, fetched_at, load_id, connector
from history
