-- Effective-dated history of every offer: one row per price period, valid_to null = current.
-- `provenance`, `host_included` and `is_verified` as in mart_gpu_offers_current (their one
-- home: int_offers_flagged; history readers read int_prices_usable, its usable periods).
-- valid_from: when the price period starts in this warehouse: for an offer seen for the
-- first time, the fetch that first saw it (first_seen_at), never the publisher's older
-- effective date, so a source's first appearance is not drawn as a price move; for a
-- change, the source's effective date when it is after the previous period's start; for a
-- historical sheet row, the date the sheet states. source_effective_at keeps the
-- publisher's date (the same value as effective_at).
with history as (
    select * from int_offers_flagged
)

select
    provider, region, zone, instance_type, pricing_model, pricing_detail,
    gpu_name, gpu_memory_gib, gpu_count, vcpus, memory_gib,
    price_usd_per_hour, price_usd_per_gpu_hour, price_flag, host_included,
    provenance, is_verified,
    valid_from, valid_to, effective_at as source_effective_at,
    fetched_at as first_seen_at, effective_at, fetched_at, load_id, connector
from history
