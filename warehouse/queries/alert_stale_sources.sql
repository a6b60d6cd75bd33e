-- The providers the staleness rule checks (alert_source_freshness), one row each, by
-- provider: those whose connector is in $watched (the configured connectors), or with
-- none configured, those this warehouse loads itself (not the dates curated sheets state).
SELECT *
FROM alert_source_freshness
WHERE CASE
    WHEN $watched::VARCHAR[] IS NULL THEN fresh_as_of IS NOT NULL AND source_as_of IS NULL
    ELSE connector IN (SELECT unnest($watched::VARCHAR[]))
END
ORDER BY provider
