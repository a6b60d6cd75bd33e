-- Each alert rule's current state (alert_rule_states): what a check compares its new
-- evaluations with.
SELECT rule, state
FROM alert_rule_states
