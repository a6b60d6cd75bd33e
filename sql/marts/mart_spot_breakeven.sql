-- Spot vs on-demand for every offer priced both ways, at a checkpoint overhead o = 0.05
-- and a checkpoint every c = 1 hour, no restart time: the spot_breakeven(...) table macro
-- at its defaults (verified prices only). The formulas live in the macro
-- (sql/macros/spot_breakeven.sql):
--   break_even_preemption_rate_per_hour = (1 - spot * (1 + o) / on_demand) / (c / 2), >= 0
--   time_multiplier (T_eff / T)         = (1 + o) / (1 - p * c / 2)
--   effective spot cost per useful hour = spot * time_multiplier
-- p, the preemption rate per hour, is known where the provider publishes an interruption
-- frequency (the AWS Spot Advisor bucket, dim_spot_interruption_buckets); elsewhere the
-- effective cost is null.
select * exclude (on_demand_zone, is_verified)
from spot_breakeven()
