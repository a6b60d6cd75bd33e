-- The budgets and rate rules of alert_rule_states now in ALARM, newest first.
SELECT rule, value, threshold, since, message, delivered
FROM alert_rule_states
WHERE state = 'ALARM'
ORDER BY since DESC, rule
