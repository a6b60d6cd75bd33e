-- Spot price points of the offers without a point series: the spot rows of the offer
-- history (one point per price period start). An offer with a point series (a
-- time-series feed, int_spot_prices_unioned) is taken from the series only, so no point is
-- counted twice. Illustrative or unverified prices (is_verified false, int_provenances)
-- are not points. The series' keys are those the refresh keeps (_spot_series, each night
-- adding its own points' keys: warehouse/spot_openings.py), not read from the 90 days of
-- points every night; with no cutoff kept (a warehouse written before them, views built
-- without a refresh) every point is read for them. (The refresh keeps every time-series
-- provider's cutoff and series at once, or none.)
with series_keys as (
    select provider, region, zone, instance_type from _spot_series
    union all
    select distinct provider, region, zone, instance_type from int_spot_prices_unioned
    -- no row group is read once a cutoff is kept (DuckDB skips them by this bound)
    where observed_at >= (
        select if(count(*) = 0, '-infinity'::timestamp, 'infinity'::timestamp)
        from _spot_cutoffs)
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
