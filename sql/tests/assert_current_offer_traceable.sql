-- Every current offer points at a load in the ledger (_loads), and that load lists at
-- least one page with its sha256 (_load_pages), the page's address in the raw store.
-- Checked once per load the current offers name (a thousand loads at a million offers),
-- then the offers of the loads that fail are returned: joining every offer with all its
-- columns to the ledger cost ten times as much.
with pages as (
    select load_id, count(*) filter (where sha256 is not null and sha256 <> '') as pages
    from _load_pages
    group by all
),

untraced as (
    select c.load_id, l.load_id is not null as in_ledger, coalesce(p.pages, 0) as pages
    from (select distinct load_id from mart_gpu_offers_current) c
    left join _loads l on l.load_id = c.load_id
    left join pages p on p.load_id = c.load_id
    where l.load_id is null or coalesce(p.pages, 0) = 0
)

select m.*, u.in_ledger, u.pages
from mart_gpu_offers_current m
join untraced u on u.load_id is not distinct from m.load_id
