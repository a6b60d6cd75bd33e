-- The latest price of every offer: provider x region x zone x instance_type x pricing_model.
-- Where a pricing model has several variants (reservation upfront options, RunPod
-- secure/community) the cheapest is shown and pricing_detail names it.
-- It carries the two flags of int_offers_flagged (their one home) as columns every
-- consumer filters on: is_verified (the provenance counts by default) and is_comparable
-- (a priced whole machine with a known GPU); int_offers_usable keeps the rows with both.
-- gpu_variant: the form factor the offer is costed as (dim_gpu_variants): the provider's
-- own where the seeds list it (H100 PCIe), else the default variant of the name and memory.
-- Dates: source_effective_at is the date the source states for the price (a sheet row's
-- as_of, Azure's effectiveStartDate, the AWS price list's effectiveDate, a spot point's
-- time; null where the source states none); first_seen_at is the fetch that first saw
-- this price (the history keeps the fetch that opened a price period). effective_at and
-- fetched_at keep their contract names and hold the same two values.
-- Cost at a million offers: the open prices and the offers are read where each step needs
-- them (a filtered scan of the history), not held whole between the steps. cheapest_order
-- is numbered on the ordering columns and the offer key alone, then joined back to each
-- offer by its key (unique here): a window carrying every column of ~670k offers sorted
-- them all and cost ~40% more CPU. The order mart_gpu_offers_current is stored in is
-- declared in its schema file (cluster_by).
with open_prices as not materialized (
    select * from int_offers_flagged
    where valid_to is null
),

-- the offers priced in several variants (most have one): only those are ranked, as a
-- window over every offer costs a sort of all of them. Found by their key's hash (one
-- number to group and match instead of five names; two keys sharing a hash only send an
-- offer through the ranking, which keeps it all the same)
several as (
    select hash(provider, region, zone, instance_type, pricing_model) as key_hash
    from open_prices
    group by all
    having count(*) > 1
),

ranked as not materialized (
    select o.* from open_prices o
    anti join several s
      on s.key_hash = hash(o.provider, o.region, o.zone, o.instance_type, o.pricing_model)
    union all
    select * from (
        select o.* from open_prices o
        semi join several s
          on s.key_hash = hash(o.provider, o.region, o.zone, o.instance_type, o.pricing_model)
    )
    qualify row_number() over (
        partition by provider, region, zone, instance_type, pricing_model
        order by price_usd_per_hour, pricing_detail nulls first
    ) = 1
),

-- the spec row each offer is costed with: its own form factor where the seeds list it
-- (common/gpu.py reads it from the provider's GPU name), else the default variant
variant_names as (
    select gpu_name, gpu_memory_gib, gpu_variant, false as is_default_variant
    from seed_gpu_variants
    union all
    select gpu_name, gpu_memory_gib, any_value(base_variant), true
    from seed_gpu_variants
    group by all
),

-- resolved once per GPU as the open prices name it (a handful of rows), not once per
-- offer (those of the variants not kept resolve too, and are matched by no offer)
gpus as (
    select distinct gpu_name, gpu_memory_gib, gpu_variant from open_prices
),

resolved as (
    select
        g.gpu_name, g.gpu_memory_gib, g.gpu_variant,
        coalesce(v.gpu_variant, case when s.gpu_name is not null then 'base' end)
            as resolved_gpu_variant
    from gpus g
    left join seed_gpu_specs s using (gpu_name, gpu_memory_gib)
    left join variant_names v
      on v.gpu_name = g.gpu_name and v.gpu_memory_gib = g.gpu_memory_gib
     and (v.gpu_variant = g.gpu_variant or v.is_default_variant)
    qualify row_number() over (
        partition by g.gpu_name, g.gpu_memory_gib, g.gpu_variant
        order by v.gpu_variant is not distinct from g.gpu_variant desc
    ) = 1
),

current_offers as not materialized (
    select
        r.provider, r.region, r.zone, r.instance_type, r.gpu_name, x.resolved_gpu_variant as gpu_variant,
        r.gpu_memory_gib, r.gpu_count,
        r.vcpus, r.memory_gib, r.pricing_model, r.pricing_detail, r.price_usd_per_hour,
        r.price_usd_per_gpu_hour, r.price_flag,
        r.host_included, r.capacity_instances, r.provenance, r.is_verified,
        r.is_comparable,
        r.effective_at as source_effective_at, r.fetched_at as first_seen_at,
        r.effective_at, r.fetched_at, r.load_id, r.connector
    from ranked r
    left join resolved x
      on x.gpu_name is not distinct from r.gpu_name
     and x.gpu_memory_gib is not distinct from r.gpu_memory_gib
     and x.gpu_variant is not distinct from r.gpu_variant
),

-- cheapest_order: the one cheapest-first order every ranking uses (int_offers_ranked, the
-- estimate, the report, the planner): per-GPU-hour price, then provider, region, zone (none
-- first), instance type, then GPU, pricing model and variant so the order is total and a
-- refresh deterministic. Offers without a per-GPU-hour price come last.
ordered as (
    select
        provider, region, zone, instance_type, pricing_model,
        row_number() over (
            order by price_usd_per_gpu_hour nulls last, provider, region, zone nulls first,
                     instance_type, gpu_name, gpu_memory_gib, pricing_model,
                     pricing_detail nulls first
        ) as cheapest_order
    from current_offers
)

select o.*, k.cheapest_order
from current_offers o
join ordered k
  on k.provider is not distinct from o.provider and k.region is not distinct from o.region
 and k.zone is not distinct from o.zone and k.instance_type is not distinct from o.instance_type
 and k.pricing_model is not distinct from o.pricing_model
