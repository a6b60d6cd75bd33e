-- At most one open history row per offer key, and no period that ends before it starts.
select provider, region, zone, instance_type, pricing_model, pricing_detail, count(*) as n
from fct_gpu_prices
where valid_to is null
group by all
having count(*) > 1
union all by name
select provider, region, zone, instance_type, pricing_model, pricing_detail, 1 as n
from fct_gpu_prices
where valid_to < valid_from
