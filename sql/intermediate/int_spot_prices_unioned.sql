-- Spot price points of the time-series feeds, one row per point, with the instance type's
-- GPU columns: AWS spot price history (stg_aws__spot_prices, deduplicated on region x zone x
-- instance_type x observed_at) joined with the AWS instance specs.
-- Verified points only, as the offer history's spot points (int_spot_offer_points): a
-- point's provenance is what the page it came from states (connectors/kit/provenance.py,
-- set at staging for every point: the provider's own, 'api', unless a recorded page says
-- otherwise, as the bundled demo's pages say of its invented points, 'illustrative'), and
-- whether it counts is the vocabulary's rule (int_provenances). So an illustrative point
-- is in no statistic, band or history. Staging states a provenance for every point (those
-- stored before points carried one take their page's statement): none is defaulted here.
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
    p.observed_at, p.load_id, p.provenance
from aws_points p
left join aws_specs s using (instance_type)
semi join int_provenances v on v.provenance = p.provenance and v.is_verified
