-- Spot price points of the time-series feeds, one row per point, with the instance type's
-- GPU columns: AWS spot price history (stg_aws__spot_prices, deduplicated on region x zone x
-- instance_type x observed_at) joined with the AWS instance specs.
with aws_points as (
    select * from stg_aws__spot_prices
),

aws_specs as (
    select * from stg_aws__instance_types
)

select
    p.provider, p.region, p.zone, p.instance_type,
    s.gpu_name, s.gpu_memory_gib, s.gpu_count,
    p.price_usd_per_hour,
    p.price_usd_per_hour / nullif(s.gpu_count, 0) as price_usd_per_gpu_hour,
    p.observed_at, p.load_id
from aws_points p
left join aws_specs s using (instance_type)
