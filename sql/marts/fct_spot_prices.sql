-- Every spot price point seen: the spot rows of the offer history (one point per price
-- period start). Time-series feeds (AWS spot history) add their points here.
with spot_history as (
    select
        provider, region, zone, instance_type, gpu_name, gpu_memory_gib,
        price_usd_per_hour, price_usd_per_gpu_hour, valid_from as observed_at, load_id
    from fct_gpu_prices
    where pricing_model = 'spot'
)

select * from spot_history
