-- One row for the report's header, from mart_gpu_offers_current: the newest fetch time
-- (prices_as_of), the number of current offers and the providers that have one.
SELECT (SELECT max(fetched_at) FROM mart_gpu_offers_current) AS prices_as_of,
       (SELECT count(*) FROM mart_gpu_offers_current) AS offers,
       (SELECT string_agg(DISTINCT provider, ', ' ORDER BY provider)
        FROM mart_gpu_offers_current) AS providers
