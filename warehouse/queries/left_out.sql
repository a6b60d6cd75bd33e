-- The current prices a default `rates` answer leaves out, counted by provenance (columns
-- provenance, prices): the rows rates.sql lists with $include_illustrative (pass true) that
-- it does not list by default (listed_by_default), under the same filters; one pass over
-- the stored mart, only the counts leave DuckDB. Pass $limit null.
SELECT provenance, count(*) AS prices
FROM {{ rates }}
WHERE NOT listed_by_default
GROUP BY provenance
ORDER BY provenance
