-- One row, column p: the worst published interruption bucket's preemption rate per
-- instance-hour (dim_spot_interruption_buckets), assumed for spot offers with none published.
SELECT max(preemption_rate_per_hour) AS p
FROM dim_spot_interruption_buckets
