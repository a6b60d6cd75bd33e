-- Every spot price point seen. Time-series feeds (AWS spot price history) give every
-- point, per availability zone (int_spot_prices_unioned); for the other spot offers the
-- points are the spot rows of the offer history, one point per price period start
-- (int_spot_offer_points, which leaves an offer with a point series to the series, so no
-- point is counted twice). Verified points only, from both: an illustrative or unverified
-- price is not a point (int_provenances' rule); `provenance` says which kind each is.
select
    provider, region, zone, instance_type, gpu_name, gpu_memory_gib, gpu_count,
    price_usd_per_hour, price_usd_per_gpu_hour, observed_at, load_id, provenance
from int_spot_prices_unioned
union all by name
select * from int_spot_offer_points
