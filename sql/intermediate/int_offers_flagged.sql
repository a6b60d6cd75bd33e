-- Every price period of snp_offers_history (open and closed) with the two flags
-- int_offers_usable and int_prices_usable keep rows by; this file is their one home:
-- * is_verified: the provenance counts by default (int_provenances; none stated = 'api');
-- * is_comparable: a priced machine with a known GPU, so its per-GPU-hour rate can be
--   ranked against others (an accelerator-only price, host_included = false, is not a
--   machine anyone can run: its host is billed apart; none stated = a whole machine).
-- int_offers_current reads its open periods (valid_to null), fct_gpu_prices and
-- int_prices_usable every period; the planner runs this same file, with int_provenances
-- and int_offers_usable, over an offers frame a caller hands in, and the plausibility
-- check over the incoming offers (warehouse/usable.py).
select
    o.* replace (
        coalesce(o.host_included, true) as host_included,
        coalesce(o.provenance, 'api') as provenance
    ),
    coalesce(p.is_verified, false) as is_verified,
    o.gpu_name is not null and o.price_usd_per_gpu_hour is not null
        and coalesce(o.host_included, true) as is_comparable
from snp_offers_history o
left join int_provenances p on p.provenance = coalesce(o.provenance, 'api')
