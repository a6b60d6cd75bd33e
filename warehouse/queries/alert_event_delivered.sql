-- After a delivery attempt: whether every target took the event ($delivered) and the
-- targets still pending with their last error ($pending_targets, JSON; null when none),
-- for the event of rule $rule recorded at $fired_at (alert_events).
UPDATE alert_events
SET delivered = $delivered, pending_targets = $pending_targets
WHERE rule = $rule AND fired_at = $fired_at
