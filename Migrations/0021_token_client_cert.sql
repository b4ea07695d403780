-- A token may be bound to a client certificate: then it is accepted only on a mutual-TLS connection whose client
-- presented that certificate, named by the SHA-256 of its DER encoding in lowercase hex. NULL: any connection.

ALTER TABLE api_tokens
    ADD COLUMN client_cert_sha256 text CHECK (client_cert_sha256 ~ '^[0-9a-f]{64}$');
