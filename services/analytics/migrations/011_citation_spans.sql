-- Where the answer's text writes each cited page's URL: [{start, end}] character offsets, like
-- brand_mentions.spans. Empty for a page only in the engine's citations or only retrieved, and in
-- analyses of version 1, made before the spans were recorded (analysing the answer again records them).
ALTER TABLE citations ADD COLUMN spans jsonb NOT NULL DEFAULT '[]';
