-- An answer whose analysis is to be made again (new rules, a changed brand or competitor set):
-- its current analysis stays until the new one replaces it.
ALTER TABLE answers ADD COLUMN reanalyse boolean NOT NULL DEFAULT false;
CREATE INDEX answers_reanalyse_idx ON answers (analyse_after, created_at) WHERE reanalyse;
