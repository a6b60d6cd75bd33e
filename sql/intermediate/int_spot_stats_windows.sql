-- The windows of the spot price statistics (mart_spot_price_stats), in days before the
-- feed's newest point. The longest one also bounds how far back the refresh keeps spot
-- history in full for them (warehouse/spot_openings.py: the points before it are summed up
-- by each series' last one).
select * from (values (7), (30), (90)) as w(days)
