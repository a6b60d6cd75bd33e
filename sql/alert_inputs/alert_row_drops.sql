-- Per connector: how many offers its latest refresh dropped. An offer the source stops
-- listing has its open price period closed at merge time with nothing opened after it
-- (sql/snapshots/snp_offers_history.sql); a price change closes one period and opens the next, so it is
-- not a drop. Counted from the history rather than _loads.rows because a page that comes
-- back unchanged is not parsed into the new load's row count.
with last_refresh as (
    select provider as connector, max(started_at) as refreshed_at
    from _loads
    where status = 'ok'
    group by all
),

offer_keys as (
    select
        connector, provider, region, zone, instance_type, pricing_model, pricing_detail,
        bool_or(valid_to is null) as is_open,
        max(valid_to) as closed_at
    from fct_gpu_prices
    group by all
)

select
    r.connector,
    r.refreshed_at,
    count(k.connector) filter (where k.is_open) as open_offers,
    count(k.connector) filter (where not k.is_open and k.closed_at >= r.refreshed_at)
        as dropped_offers
from last_refresh r
left join offer_keys k using (connector)
group by all
