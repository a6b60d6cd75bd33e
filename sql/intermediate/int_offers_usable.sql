-- The current offers every ranking, estimate, budget, rate rule, cost mart and break-even
-- reads: verified provenance and comparable per-GPU-hour rates (rules stated in
-- int_offers_current and int_provenances). Illustrative or unverified prices, and
-- accelerator-only prices, are left out here and nowhere else.
select * from int_offers_current
where is_verified and is_comparable
