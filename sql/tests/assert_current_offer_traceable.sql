-- Every current offer points at a load in the ledger (_loads), and that load lists at
-- least one page with its sha256 (_load_pages), the page's address in the raw store.
with pages as (
    select load_id, count(*) filter (where sha256 is not null and sha256 <> '') as pages
    from _load_pages
    group by all
)

select m.*, l.load_id is not null as in_ledger, coalesce(p.pages, 0) as pages
from mart_gpu_offers_current m
left join _loads l on l.load_id = m.load_id
left join pages p on p.load_id = m.load_id
where l.load_id is null or coalesce(p.pages, 0) = 0
