-- A cited page on a verified domain of one of the organization's Apps is linked to the App route
-- that served its path when the answer was analysed (read from the apps part, `/internal/routes/by-url`):
-- the App, the route and the route's path. NULL for every other page.
ALTER TABLE citations
    ADD COLUMN app_id     uuid,
    ADD COLUMN route_id   uuid,
    ADD COLUMN route_path text;
