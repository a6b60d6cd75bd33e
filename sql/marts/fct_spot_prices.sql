-- Every spot price point seen. Time-series feeds (AWS spot price history) give every
-- point, per availability zone; for the other spot offers the points are the spot rows
-- of the offer history (one point per price period start). An offer with a point series
-- is taken from the series only, so no point is counted twice. Illustrative or unverified
-- prices (is_verified false, int_provenances) are not points.
-- `series` is read twice: not materialised, or DuckDB holds all its rows (900 MB at a year
-- of points) where two streaming reads cost half the time
with series as not materialized (
    select * from int_spot_prices_unioned
),

series_keys as (
    select distinct provider, region, zone, instance_type from series
),

spot_history as (
    select
        h.provider, h.region, h.zone, h.instance_type, h.gpu_name, h.gpu_memory_gib,
        h.gpu_count, h.price_usd_per_hour, h.price_usd_per_gpu_hour,
        h.valid_from as observed_at, h.load_id
    from fct_gpu_prices h
    where h.pricing_model = 'spot' and h.is_verified
      and not exists (
          select 1 from series_keys k
          where k.provider = h.provider and k.region = h.region
            and k.zone is not distinct from h.zone and k.instance_type = h.instance_type)
)

select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    price_usd_per_hour, price_usd_per_gpu_hour, observed_at, load_id
from series
union all by name
select * from spot_history
