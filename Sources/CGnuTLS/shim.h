#include <stddef.h>
#include <string.h>
#include <time.h>
#include <gnutls/gnutls.h>
#include <gnutls/x509.h>

// The few GnuTLS calls the HTTP server makes on its own credentials and sessions, with the pointers and datums kept
// on this side. Each returns a GnuTLS error code (negative) or 0 unless it says otherwise.

static inline gnutls_datum_t geoledger_tls_datum(const char *text) {
    gnutls_datum_t datum = { (unsigned char *) text, (unsigned int) strlen(text) };
    return datum;
}

/// The number of certificates in a PEM text (0 when it holds none), or an error.
static inline int geoledger_tls_count_certificates(const char *pem) {
    gnutls_datum_t datum = geoledger_tls_datum(pem);
    gnutls_x509_crt_t *list = NULL;
    unsigned int count = 0;
    int result = gnutls_x509_crt_list_import2(&list, &count, &datum, GNUTLS_X509_FMT_PEM, 0);
    if (result < 0) return result;
    for (unsigned int i = 0; i < count; i++) gnutls_x509_crt_deinit(list[i]);
    gnutls_free(list);
    return (int) count;
}

/// Whether a PEM text holds a private key that can be read without a password.
static inline int geoledger_tls_check_key(const char *pem) {
    gnutls_x509_privkey_t key;
    int result = gnutls_x509_privkey_init(&key);
    if (result < 0) return result;
    gnutls_datum_t datum = geoledger_tls_datum(pem);
    result = gnutls_x509_privkey_import2(key, &datum, GNUTLS_X509_FMT_PEM, NULL, GNUTLS_PKCS_PLAIN);
    gnutls_x509_privkey_deinit(key);
    return result;
}

/// A certificate's subject as RFC 4514 writes it (`CN=name,O=organisation`), into `subject`.
static inline int geoledger_tls_subject(gnutls_x509_crt_t certificate, char *subject, size_t subject_size) {
    gnutls_datum_t dn = { NULL, 0 };
    int result = gnutls_x509_crt_get_dn3(certificate, &dn, 0);
    if (result < 0) return result;
    size_t length = dn.size < subject_size - 1 ? dn.size : subject_size - 1;
    memcpy(subject, dn.data, length);
    subject[length] = 0;
    gnutls_free(dn.data);
    return 0;
}

/// The first certificate's subject (RFC 4514) into `subject` and its expiry into `expires`.
static inline int geoledger_tls_certificate_summary(const char *pem, char *subject, size_t subject_size, time_t *expires) {
    gnutls_x509_crt_t certificate;
    int result = gnutls_x509_crt_init(&certificate);
    if (result < 0) return result;
    gnutls_datum_t datum = geoledger_tls_datum(pem);
    result = gnutls_x509_crt_import(certificate, &datum, GNUTLS_X509_FMT_PEM);
    if (result >= 0) {
        result = geoledger_tls_subject(certificate, subject, subject_size);
        *expires = gnutls_x509_crt_get_expiration_time(certificate);
    }
    gnutls_x509_crt_deinit(certificate);
    return result < 0 ? result : 0;
}

/// New credentials holding a certificate chain and its key. `*credentials` is set only on success.
static inline int geoledger_tls_make_credentials(
    gnutls_certificate_credentials_t *credentials, const char *certificate_pem, const char *key_pem)
{
    gnutls_certificate_credentials_t made;
    int result = gnutls_certificate_allocate_credentials(&made);
    if (result < 0) return result;
    gnutls_datum_t certificate = geoledger_tls_datum(certificate_pem);
    gnutls_datum_t key = geoledger_tls_datum(key_pem);
    // GnuTLS checks that the key belongs to the certificate (GNUTLS_E_CERTIFICATE_KEY_MISMATCH otherwise).
    result = gnutls_certificate_set_x509_key_mem2(made, &certificate, &key, GNUTLS_X509_FMT_PEM, NULL, 0);
    if (result < 0) {
        gnutls_certificate_free_credentials(made);
        return result;
    }
    *credentials = made;
    return 0;
}

/// Adds the CAs a client's certificate must be signed by; returns how many were added.
static inline int geoledger_tls_add_trust(gnutls_certificate_credentials_t credentials, const char *ca_pem) {
    gnutls_datum_t datum = geoledger_tls_datum(ca_pem);
    return gnutls_certificate_set_x509_trust_mem(credentials, &datum, GNUTLS_X509_FMT_PEM);
}

/// Makes a session, before its handshake, use `credentials`; with `require_client_certificate`, the handshake fails
/// unless the client sends a certificate that verifies against the credentials' CAs.
static inline int geoledger_tls_attach(
    void *session, gnutls_certificate_credentials_t credentials, int require_client_certificate)
{
    int result = gnutls_credentials_set((gnutls_session_t) session, GNUTLS_CRD_CERTIFICATE, credentials);
    if (result < 0) return result;
    if (require_client_certificate) {
        gnutls_certificate_server_set_request((gnutls_session_t) session, GNUTLS_CERT_REQUIRE);
        gnutls_session_set_verify_cert((gnutls_session_t) session, NULL, 0);
    }
    return 0;
}

/// The client's certificate, once the handshake is done: 1 with its subject and the SHA-256 of its DER encoding when
/// it sent one that verifies, 0 when it sent none (or one that does not verify), or an error.
static inline int geoledger_tls_peer_certificate(
    void *session, char *subject, size_t subject_size, unsigned char *sha256, size_t sha256_size)
{
    unsigned int count = 0;
    const gnutls_datum_t *peers = gnutls_certificate_get_peers((gnutls_session_t) session, &count);
    if (peers == NULL || count == 0) return 0;
    unsigned int status = 0;
    if (gnutls_certificate_verify_peers2((gnutls_session_t) session, &status) < 0 || status != 0) return 0;
    size_t size = sha256_size;
    int result = gnutls_fingerprint(GNUTLS_DIG_SHA256, &peers[0], sha256, &size);
    if (result < 0) return result;
    gnutls_x509_crt_t certificate;
    result = gnutls_x509_crt_init(&certificate);
    if (result < 0) return result;
    result = gnutls_x509_crt_import(certificate, &peers[0], GNUTLS_X509_FMT_DER);
    if (result >= 0) {
        result = geoledger_tls_subject(certificate, subject, subject_size);
    }
    gnutls_x509_crt_deinit(certificate);
    return result < 0 ? result : 1;
}

/// The negotiated protocol, e.g. "TLS1.3".
static inline const char *geoledger_tls_protocol(void *session) {
    return gnutls_protocol_get_name(gnutls_protocol_get_version((gnutls_session_t) session));
}
