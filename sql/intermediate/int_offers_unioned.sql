-- Every connector's staged offers in one relation. One branch per registered connector
-- (tests/test_registry_meta.py checks that none is missing); `connector` says which staging
-- table a row came from (the sheets connector publishes rows for several providers).
select 'azure' as connector, * from stg_azure__offers
union all by name select 'gcp' as connector, * from stg_gcp__offers
union all by name select 'aws' as connector, * from stg_aws__offers
union all by name select 'lambdalabs' as connector, * from stg_lambdalabs__offers
union all by name select 'runpod' as connector, * from stg_runpod__offers
union all by name select 'vastai' as connector, * from stg_vastai__offers
union all by name select 'oci' as connector, * from stg_oci__offers
union all by name select 'sheets' as connector, * from stg_sheets__offers
union all by name select 'hyperstack' as connector, * from stg_hyperstack__offers
union all by name select 'verda' as connector, * from stg_verda__offers
union all by name select 'digitalocean' as connector, * from stg_digitalocean__offers
union all by name select 'vultr' as connector, * from stg_vultr__offers
union all by name select 'cloudrift' as connector, * from stg_cloudrift__offers
union all by name select 'jarvislabs' as connector, * from stg_jarvislabs__offers
union all by name select 'hotaisle' as connector, * from stg_hotaisle__offers
union all by name select 'crusoe' as connector, * from stg_crusoe__offers
union all by name select 'fluidstack' as connector, * from stg_fluidstack__offers
union all by name select 'seeweb' as connector, * from stg_seeweb__offers
union all by name select 'nebius' as connector, * from stg_nebius__offers
