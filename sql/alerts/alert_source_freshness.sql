-- Per provider: when its newest successful load finished (wall-clock landing time, so a
-- replayed snapshot counts as fresh), and how its latest attempt went.
with attempts as (
    select * from _loads
)

select
    provider,
    max(finished_at) filter (where status = 'ok') as last_ok_at,
    max(finished_at) as last_attempt_at,
    arg_max(status, finished_at) as last_status,
    arg_max(error, finished_at) as last_error
from attempts
group by all
