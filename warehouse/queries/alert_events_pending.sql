-- The recorded alert events (alert_events) some target has not taken yet, oldest first:
-- what a delivery attempt retries.
SELECT rule, state, message, fired_at, pending_targets
FROM alert_events
WHERE NOT delivered AND pending_targets IS NOT NULL
ORDER BY fired_at, rule
