-- Effective-dated history of every offer: one row per price period, valid_to null = current.
-- `provenance` and `is_verified` as in mart_gpu_offers_current (rule: int_provenances).
-- valid_from: when the price period starts in this warehouse: for an offer seen for the
-- first time, the fetch that first saw it (first_seen_at), never the publisher's older
-- effective date, so a source's first appearance is not drawn as a price move; for a
-- change, the source's effective date when it is after the previous period's start; for a
-- historical sheet row, the date the sheet states. source_effective_at keeps the
-- publisher's date (the same value as effective_at).
with history as (
    select * from snp_offers_history
),

provenances as (
    select * from int_provenances
)

select
    h.provider, h.region, h.zone, h.instance_type, h.pricing_model, h.pricing_detail,
    h.gpu_name, h.gpu_memory_gib, h.gpu_count, h.vcpus, h.memory_gib,
    h.price_usd_per_hour, h.price_usd_per_gpu_hour, h.price_flag, h.host_included,
    coalesce(h.provenance, 'api') as provenance, coalesce(p.is_verified, false) as is_verified,
    h.valid_from, h.valid_to, h.effective_at as source_effective_at,
    h.fetched_at as first_seen_at, h.effective_at, h.fetched_at, h.load_id, h.connector
from history h
left join provenances p on p.provenance = coalesce(h.provenance, 'api')
