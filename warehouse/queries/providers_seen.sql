-- The providers with at least one price in fct_gpu_prices (one column, provider).
SELECT DISTINCT provider
FROM fct_gpu_prices
