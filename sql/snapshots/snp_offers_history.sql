-- snp_offers_history: effective-dated offer history (SCD type 2; dbt calls such a table a
-- snapshot). One row per price period of an offer key (provider x region x zone x
-- instance_type x pricing_model x pricing_detail); valid_to null = the current price.
--
-- Run by a refresh after staging (warehouse.sql_runner.run_snapshot, in one transaction)
-- with two parameters: $connectors, the connectors whose offers were re-staged this run,
-- and $as_of, the refresh time. Only their keys are merged; the other connectors' history
-- stands. Their current offers (int_offers_unioned, one staged row per offer key) are
-- merged in:
-- * a key whose price is unchanged: nothing is added; where one of its descriptive columns
--   (gpu_name, gpu_variant, gpu_memory_gib, gpu_count, vcpus, memory_gib, price_usd_per_gpu_hour,
--   price_flag, host_included, capacity_instances) changed, they and provenance are refreshed in place on the
--   open row, so a parser fix reaches it;
-- * a key that is new: a row is opened at the fetch that first saw it (valid_from =
--   fetched_at), not at the publisher's effective date: a source that appears today with a
--   price its publisher dates 2024 did not change price today, it was first seen today (the
--   publisher's date stays in effective_at). Rows carrying expires_at (historical price
--   sheets) are inserted closed over the period their source states (effective_at ..
--   expires_at);
-- * a key whose price changed: the open row is closed (valid_to) and a new one opened; the
--   new period starts at the source's effective date when that is after the open period's
--   start, else at the fetch time (else one microsecond after the open period's start);
-- * an open key that a refreshed connector no longer lists: closed at the refresh time
--   ($as_of; never before the period opened: a delisted price whose effective date is
--   still ahead closes one microsecond after it opened).
-- Re-merging the same offers is a no-op, so a repeated refresh adds no history rows.
-- Its one SELECT reports what the merge did: periods opened and periods closed.

create or replace temp table _history_before as
select count(*) filter (where valid_to is null) as open_rows, count(*) as all_rows
from snp_offers_history;

-- each re-staged offer next to the open period of its key, and where its new period starts
create or replace temp table _plan as
select
    c.*,
    h.price_usd_per_hour as _old_price,
    h.valid_from is not null as _has_open,
    case
        when h.valid_from is null and c.expires_at is not null
            then coalesce(c.effective_at, c.fetched_at)
        when h.valid_from is null then c.fetched_at
        when coalesce(c.effective_at, c.fetched_at) > h.valid_from
            then coalesce(c.effective_at, c.fetched_at)
        when c.fetched_at > h.valid_from then c.fetched_at
        else h.valid_from + interval 1 microsecond
    end as _new_from
from int_offers_unioned c
left join snp_offers_history h
  on h.valid_to is null
 and h.provider is not distinct from c.provider
 and h.region is not distinct from c.region
 and h.zone is not distinct from c.zone
 and h.instance_type is not distinct from c.instance_type
 and h.pricing_model is not distinct from c.pricing_model
 and h.pricing_detail is not distinct from c.pricing_detail
where c.connector in (select unnest($connectors));

-- a changed price closes its open period where the new one starts
update snp_offers_history h
set valid_to = p._new_from
from _plan p
where h.valid_to is null
  and h.provider is not distinct from p.provider
  and h.region is not distinct from p.region
  and h.zone is not distinct from p.zone
  and h.instance_type is not distinct from p.instance_type
  and h.pricing_model is not distinct from p.pricing_model
  and h.pricing_detail is not distinct from p.pricing_detail
  and p._has_open
  and p.price_usd_per_hour <> p._old_price;

-- an unchanged price: its descriptive columns refreshed in place, only on rows whose
-- description changed (rewriting every open row each night cost seconds and grew with the
-- table)
update snp_offers_history h
set
    gpu_name = p.gpu_name,
    gpu_variant = p.gpu_variant,
    gpu_memory_gib = p.gpu_memory_gib,
    gpu_count = p.gpu_count,
    vcpus = p.vcpus,
    memory_gib = p.memory_gib,
    price_usd_per_gpu_hour = p.price_usd_per_gpu_hour,
    price_flag = p.price_flag,
    host_included = p.host_included,
    capacity_instances = p.capacity_instances,
    provenance = p.provenance
from _plan p
where h.valid_to is null
  and h.provider is not distinct from p.provider
  and h.region is not distinct from p.region
  and h.zone is not distinct from p.zone
  and h.instance_type is not distinct from p.instance_type
  and h.pricing_model is not distinct from p.pricing_model
  and h.pricing_detail is not distinct from p.pricing_detail
  and p._has_open
  and p.price_usd_per_hour = p._old_price
  and (
      h.gpu_name is distinct from p.gpu_name
      or h.gpu_variant is distinct from p.gpu_variant
      or h.gpu_memory_gib is distinct from p.gpu_memory_gib
      or h.gpu_count is distinct from p.gpu_count
      or h.vcpus is distinct from p.vcpus
      or h.memory_gib is distinct from p.memory_gib
      or h.price_usd_per_gpu_hour is distinct from p.price_usd_per_gpu_hour
      or h.price_flag is distinct from p.price_flag
      or h.host_included is distinct from p.host_included
      or h.capacity_instances is distinct from p.capacity_instances
  );

-- an open key a refreshed connector no longer lists closes at the refresh time, never
-- before it opened
update snp_offers_history h
set valid_to = greatest($as_of, h.valid_from + interval 1 microsecond)
where h.valid_to is null
  and h.connector in (select unnest($connectors))
  and not exists (
      select 1
      from _plan c
      where h.provider is not distinct from c.provider
        and h.region is not distinct from c.region
        and h.zone is not distinct from c.zone
        and h.instance_type is not distinct from c.instance_type
        and h.pricing_model is not distinct from c.pricing_model
        and h.pricing_detail is not distinct from c.pricing_detail
  );

-- the open rows once the closing updates are done: closed = open before - open now
create or replace temp table _history_closed as
select count(*) as open_rows
from snp_offers_history
where valid_to is null;

-- new keys and changed prices open a period (closed at once where the source states an
-- expiry); a period already stored with the same start is not added twice. Inserted
-- straight from the plan: a copy of the periods first held every new offer twice in
-- memory (a new warehouse of a million offers: ~200 MB, 0.4 s)
insert into snp_offers_history by name
select
    * exclude (_old_price, _has_open, _new_from),
    _new_from as valid_from,
    expires_at as valid_to
from _plan p
where (not p._has_open or p.price_usd_per_hour <> p._old_price)
  and not exists (
      select 1
      from snp_offers_history h
      where h.provider is not distinct from p.provider
        and h.region is not distinct from p.region
        and h.zone is not distinct from p.zone
        and h.instance_type is not distinct from p.instance_type
        and h.pricing_model is not distinct from p.pricing_model
        and h.pricing_detail is not distinct from p.pricing_detail
        and h.valid_from = p._new_from
  );

-- what the merge did, counted on the table (the merge only ever closes open rows and
-- adds rows): periods opened = rows added; periods closed = open rows the updates closed
select
    n.all_rows - b.all_rows as opened,
    b.open_rows - c.open_rows as closed
from _history_before b, _history_closed c,
    (select count(*) as all_rows from snp_offers_history) n;

drop table _plan;
drop table _history_closed;
drop table _history_before;
