-- Spot interruption-frequency buckets per provider x region x instance type, where a feed
-- publishes them: the AWS Spot Instance Advisor (Linux). `interruption_bucket` is the
-- feed's label, `interruption_rate_max_pct` its upper bound (5, 10, 15, 20; 100 for >20%).
with aws_advisor as (
    select * from stg_aws__spot_advisor
)

select
    provider, region, instance_type, interruption_bucket, interruption_rate_max_pct,
    savings_pct as advisor_savings_pct, load_id
from aws_advisor
