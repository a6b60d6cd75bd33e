-- The provenance vocabulary and the one rule of what counts by default. Every offer row
-- carries a `provenance` (connectors/kit/normalise.py sets 'api' for a provider's own prices;
-- connectors/sheets/parse.py sets the others; a recorded page's statement,
-- connectors/kit/provenance.py, marks the demo snapshot's invented prices 'illustrative'):
--   api              a provider's price API or published price file
--   published_sheet  a curated sheet row that cites a public price page
--   illustrative     a sheet value that is not a bookable price (kept for context), or a
--                    demo snapshot price the demo builder invented
--   unverified       a sheet row whose source a reader cannot check (no public URL)
-- `is_verified` prices feed rankings, estimates, budgets, rate rules, cost marts,
-- break-evens and the report's charts; the others only when asked for
-- (--include-illustrative) and always marked.
select *
from (values
    ('api', true, 'a provider''s price API or published price file'),
    ('published_sheet', true, 'a curated sheet row citing a public price page'),
    ('illustrative', false, 'not a bookable price: a sheet value kept for context, or a demo value'),
    ('unverified', false, 'a sheet row whose source cannot be checked')
) as p(provenance, is_verified, provenance_meaning)
