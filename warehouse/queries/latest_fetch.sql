-- One row, column t: the newest fetch time of any price in fct_gpu_prices.
SELECT max(fetched_at) AS t
FROM fct_gpu_prices
