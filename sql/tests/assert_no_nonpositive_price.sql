-- No current offer with a zero, negative or missing price.
select * from mart_gpu_offers_current
where price_usd_per_hour is null or price_usd_per_hour <= 0
   or price_usd_per_gpu_hour <= 0 or isnan(price_usd_per_hour)
