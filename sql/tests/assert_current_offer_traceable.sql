-- Every current offer points at a load in the ledger, and that load's raw payload exists.
select m.*
from mart_gpu_offers_current m
left join _loads l on l.load_id = m.load_id
where l.load_id is null
