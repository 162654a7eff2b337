-- The contract types a run's tokensUsed as a number, not an integer: a runner may report a
-- fractional count (an average over attempts, a weighted count). Stored like costUsd.
ALTER TABLE runs ALTER COLUMN tokens_used TYPE double precision;
