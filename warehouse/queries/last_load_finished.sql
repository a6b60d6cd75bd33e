-- When the newest load of the warehouse finished (_loads.finished_at): the "as of" of a
-- publish, written into its manifest and the tables' properties. Null on an empty ledger.
SELECT max(finished_at) AS finished_at FROM _loads
