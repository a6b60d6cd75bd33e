-- One current row per offer grain.
select provider, region, zone, instance_type, pricing_model, count(*) as n
from mart_gpu_offers_current
group by all
having count(*) > 1
