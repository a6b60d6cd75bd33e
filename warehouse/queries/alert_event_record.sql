-- Record a change of state of an alert rule in alert_events, not yet delivered:
-- $pending_targets is the JSON object of the targets still to take it (target name ->
-- "not yet attempted"), null when the change notifies nobody.
INSERT INTO alert_events (rule, state, value, threshold, message, fired_at, delivered,
                          pending_targets)
VALUES ($rule, $state, $value, $threshold, $message, $fired_at, false, $pending_targets)
