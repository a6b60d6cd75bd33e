-- No price period that ends before it starts. (At most one open period per offer key is
-- the offer history's declared test, sql/snapshots/snp_offers_history.yml: its one home;
-- grouping all history a second time here cost as much again.)
select provider, region, zone, instance_type, pricing_model, pricing_detail, valid_from, valid_to
from fct_gpu_prices
where valid_to < valid_from
