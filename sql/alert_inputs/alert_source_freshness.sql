-- Per provider: how fresh its prices are, and how its latest load attempt went.
-- * A provider with its own connector (API or price file): dated by when its newest
--   successful load finished (wall-clock landing time, so a replayed snapshot counts as
--   fresh).
-- * A provider whose prices come only through a curated-sheet connector (coreweave,
--   paperspace, fluidstack ...: rows whose provider is not their connector): dated by the
--   newest date its current rows state (the sheet's as_of), because re-reading a
--   three-month-old sheet does not make its prices fresh. Its load status is the sheet
--   connector's. The sheet connector itself gets no row of its own (its "loaded 1 h ago"
--   would say nothing about its prices).
-- fresh_as_of is what the staleness rule compares with the clock.
with attempts as (
    select
        provider as connector,
        max(finished_at) filter (where status = 'ok') as last_ok_at,
        max(finished_at) as last_attempt_at,
        arg_max(status, finished_at) as last_status,
        arg_max(error, finished_at) as last_error
    from _loads
    group by all
),

-- read from the stored current offers (mart_gpu_offers_current), each with the connector
-- whose load it came from (every current offer's load is in _loads:
-- sql/tests/assert_current_offer_traceable.sql), not from int_offers_current: that would
-- compute the whole current offer stack again on every check, also when nothing changed
sheet_providers as (
    select
        o.provider, l.provider as connector,
        max(coalesce(o.source_effective_at, o.first_seen_at)) as source_as_of
    from mart_gpu_offers_current o
    join _loads l on l.load_id = o.load_id
    where o.provider not in (select connector from attempts)
      and o.provider <> l.provider
    group by all
),

own_connectors as (
    select
        a.connector as provider, a.connector, a.last_ok_at, a.last_attempt_at, a.last_status,
        a.last_error, null::timestamp as source_as_of
    from attempts a
    where a.connector not in (select connector from sheet_providers)
),

via_sheets as (
    select
        s.provider, s.connector, a.last_ok_at, a.last_attempt_at, a.last_status, a.last_error,
        s.source_as_of
    from sheet_providers s
    join attempts a using (connector)
),

both_kinds as (
    select * from own_connectors
    union all by name
    select * from via_sheets
)

select
    provider, connector, last_ok_at, last_attempt_at, last_status, last_error, source_as_of,
    coalesce(source_as_of, last_ok_at) as fresh_as_of
from both_kinds
