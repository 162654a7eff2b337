-- The name a device gives itself when it asks to sign in (`aivis on laptop (profile default)`),
-- kept on the grant an approval starts, so a person tells their devices apart.
ALTER TABLE device_authorizations ADD COLUMN device_name text CHECK (char_length(device_name) BETWEEN 1 AND 100);
ALTER TABLE oauth_grants ADD COLUMN device_name text CHECK (char_length(device_name) BETWEEN 1 AND 100);
