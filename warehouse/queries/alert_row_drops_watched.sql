-- The connectors the row-drop rule checks (alert_row_drops), one row each, by connector:
-- those in $watched (the configured connectors), every one when it is null.
SELECT *
FROM alert_row_drops
WHERE $watched::VARCHAR[] IS NULL OR connector IN (SELECT unnest($watched::VARCHAR[]))
ORDER BY connector
