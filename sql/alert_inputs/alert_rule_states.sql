-- The current state of every alert rule: its latest event in alert_events (a rule that
-- never fired is OK). `state = 'ALARM'` rows are the active alerts.
with ranked as (
    select
        *,
        row_number() over (partition by rule order by fired_at desc) as recency
    from alert_events
)

select
    rule, state, value, threshold, message, fired_at as since, delivered, pending_targets,
    pending_targets as delivery_error  -- the former name, kept for one release
from ranked
where recency = 1
