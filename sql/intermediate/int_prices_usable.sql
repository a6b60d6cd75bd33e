-- The price history every history reader reads (alert_price_moves, the report's price
-- steps, a usage budget's rates): the price periods, open and closed, of snp_offers_history
-- with both flags of int_offers_flagged (their one home), as int_offers_usable keeps the
-- current offers with both. Illustrative or unverified prices, and accelerator-only
-- prices, are left out of the history here and nowhere else.
select * from int_offers_flagged
where is_verified and is_comparable
