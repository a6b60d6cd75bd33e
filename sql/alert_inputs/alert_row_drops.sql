-- Per connector: how many offers its latest refresh dropped. An offer the source stops
-- listing has its open price period closed at merge time with nothing opened after it
-- (sql/snapshots/snp_offers_history.sql); a price change closes one period and opens the next, so it is
-- not a drop. Counted from the history rather than _loads.rows because a page that comes
-- back unchanged is not parsed into the new load's row count.
-- Read as filters of the history, never a grouping of all of it (that grows every night):
-- the open periods counted (one per key at most: the offer history's declared test in
-- sql/snapshots/snp_offers_history.yml), and the few periods closed since the connector's latest refresh began.
with last_refresh as (
    select provider as connector, max(started_at) as refreshed_at
    from _loads
    where status = 'ok'
    group by all
),

open_counts as (
    select connector, count(*) as open_offers
    from fct_gpu_prices
    where valid_to is null
    group by all
),

-- the keys a period of which closed at or after the refresh, and which have no open
-- period (a price change closes one period and opens the next: not a drop)
closed_since as (
    select distinct
        h.connector, h.provider, h.region, h.zone, h.instance_type, h.pricing_model,
        h.pricing_detail
    from fct_gpu_prices h
    join last_refresh r on r.connector = h.connector
    where h.valid_to >= r.refreshed_at
),

dropped_counts as (
    select c.connector, count(*) as dropped_offers
    from closed_since c
    anti join fct_gpu_prices o
      on o.connector = c.connector and o.provider is not distinct from c.provider
     and o.region is not distinct from c.region
     and o.zone is not distinct from c.zone
     and o.instance_type is not distinct from c.instance_type
     and o.pricing_model is not distinct from c.pricing_model
     and o.pricing_detail is not distinct from c.pricing_detail
     and o.valid_to is null
    group by all
)

select
    r.connector,
    r.refreshed_at,
    coalesce(o.open_offers, 0) as open_offers,
    coalesce(d.dropped_offers, 0) as dropped_offers
from last_refresh r
left join open_counts o using (connector)
left join dropped_counts d using (connector)
