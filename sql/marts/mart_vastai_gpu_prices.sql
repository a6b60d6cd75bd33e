-- Vast.ai marketplace per GPU (name x memory) and pricing model: the cheapest and the
-- median per-GPU-hour price over every current offer, and how many offers there are.
-- Both on purpose: the median alone hides the cheapest offer, the minimum alone can be
-- one odd host. The cheapest offer is named (instance_type, region, load_id) so it can
-- be traced back to its raw page.
with vast_offers as (
    select * from mart_gpu_offers_current
    where provider = 'vastai' and gpu_name is not null and price_usd_per_gpu_hour is not null
),

per_gpu as (
    select
        gpu_name,
        gpu_memory_gib,
        pricing_model,
        min(price_usd_per_gpu_hour) as min_usd_per_gpu_hour,
        median(price_usd_per_gpu_hour) as median_usd_per_gpu_hour,
        count(*) as offers,
        sum(gpu_count) as gpus,
        arg_min(instance_type, price_usd_per_gpu_hour) as cheapest_instance_type,
        arg_min(region, price_usd_per_gpu_hour) as cheapest_region,
        arg_min(load_id, price_usd_per_gpu_hour) as cheapest_load_id
    from vast_offers
    group by all
)

select * from per_gpu
