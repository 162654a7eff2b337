"""OAuth 2.0 served by the gateway: the device authorization grant (RFC 8628), refresh tokens,
revocation (RFC 7009) and the authorization server's metadata (RFC 8414)."""
