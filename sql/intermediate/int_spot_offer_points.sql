-- Spot price points of the offers without a point series: the spot rows of the offer
-- history (one point per price period start). An offer with a point series (a
-- time-series feed, int_spot_prices_unioned) is taken from the series only, so no point is
-- counted twice. Illustrative or unverified prices (is_verified false, int_provenances)
-- are not points. The series' keys are read from int_spot_prices_recent, which holds a
-- point of every series (its last one before the cutoff, or its later ones), not from
-- the whole history.
with series_keys as (
    select distinct provider, region, zone, instance_type from int_spot_prices_recent
)

select
    h.provider, h.region, h.zone, h.instance_type, h.gpu_name, h.gpu_memory_gib,
    h.gpu_count, h.price_usd_per_hour, h.price_usd_per_gpu_hour,
    h.valid_from as observed_at, h.load_id, h.provenance
from fct_gpu_prices h
where h.pricing_model = 'spot' and h.is_verified
  and not exists (
      select 1 from series_keys k
      where k.provider = h.provider and k.region = h.region
        and k.zone is not distinct from h.zone and k.instance_type = h.instance_type)
