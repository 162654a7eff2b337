-- A product's brand, as the analysis of AI answers looks for it: the name it goes by (the
-- product's name when null), other names people write, and the domains it owns (hostnames; a
-- page on one of them or under one is the brand's own). Read by the analytics part.
ALTER TABLE products
    ADD COLUMN brand_name    text CHECK (length(brand_name) BETWEEN 1 AND 200),
    ADD COLUMN brand_aliases text[] NOT NULL DEFAULT '{}' CHECK (cardinality(brand_aliases) <= 20),
    ADD COLUMN owned_domains text[] NOT NULL DEFAULT '{}' CHECK (cardinality(owned_domains) <= 50);
