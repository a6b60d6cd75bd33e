-- Every connector's staged offers in one relation. One branch per registered connector
-- (tests/test_registry.py checks that none is missing); `connector` says which staging
-- table a row came from (the sheets connector publishes rows for several providers).
select 'azure' as connector, * from stg_azure__offers
union all by name select 'gcp' as connector, * from stg_gcp__offers
