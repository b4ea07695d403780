#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/types.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <microhttpd.h>

// Swift cannot call C's variadic functions. These wrappers name the few arguments the server passes.

/// Leaves the path and the query arguments as sent: the server percent-decodes them itself, one path
/// segment at a time, so that `%2F` inside a segment stays in that segment.
static inline size_t geoledger_mhd_keep_escaped(void *context, struct MHD_Connection *connection, char *text) {
    (void) context;
    (void) connection;
    return strlen(text);
}

/// Called when a request line has arrived, before its headers; what it returns is the request's context pointer.
typedef void *(*geoledger_mhd_request_line_callback)(void *context, const char *uri, struct MHD_Connection *connection);

/// Starts a daemon on a socket that is already listening.
static inline struct MHD_Daemon *geoledger_mhd_start_daemon(
    unsigned int flags, int listen_socket, MHD_AccessHandlerCallback access_handler,
    MHD_RequestCompletedCallback request_completed, geoledger_mhd_request_line_callback request_line,
    MHD_NotifyConnectionCallback notify_connection, MHD_LogCallback logger, void *context,
    unsigned int connection_timeout_seconds, unsigned int connection_limit, size_t connection_memory_limit,
    unsigned int per_address_limit, const char *tls_certificate, const char *tls_key, const char *tls_priorities)
{
    // TLS (when a certificate is given) and the limit per client address (when not 0), as an option array, so that
    // a plain daemon is not handed options it would complain of.
    struct MHD_OptionItem extra[5];
    int count = 0;
    if (tls_certificate != NULL && tls_key != NULL && tls_priorities != NULL) {
        flags |= MHD_USE_TLS;
        extra[count++] = (struct MHD_OptionItem) { MHD_OPTION_HTTPS_MEM_CERT, 0, (void *) tls_certificate };
        extra[count++] = (struct MHD_OptionItem) { MHD_OPTION_HTTPS_MEM_KEY, 0, (void *) tls_key };
        extra[count++] = (struct MHD_OptionItem) { MHD_OPTION_HTTPS_PRIORITIES, 0, (void *) tls_priorities };
    }
    if (per_address_limit > 0) {
        extra[count++] = (struct MHD_OptionItem) { MHD_OPTION_PER_IP_CONNECTION_LIMIT, (intptr_t) per_address_limit, NULL };
    }
    extra[count] = (struct MHD_OptionItem) { MHD_OPTION_END, 0, NULL };
    return MHD_start_daemon(
        flags, 0, NULL, NULL, access_handler, context,
        MHD_OPTION_EXTERNAL_LOGGER, logger, context, /* first, so that it gets every message */
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket) listen_socket,
        MHD_OPTION_NOTIFY_COMPLETED, request_completed, context,
        MHD_OPTION_URI_LOG_CALLBACK, request_line, context,
        MHD_OPTION_NOTIFY_CONNECTION, notify_connection, context,
        MHD_OPTION_CONNECTION_TIMEOUT, connection_timeout_seconds,
        MHD_OPTION_CONNECTION_LIMIT, connection_limit,
        MHD_OPTION_CONNECTION_MEMORY_LIMIT, connection_memory_limit,
        MHD_OPTION_UNESCAPE_CALLBACK, geoledger_mhd_keep_escaped, NULL,
        MHD_OPTION_ARRAY, extra,
        MHD_OPTION_END);
}

/// The peer's address, or NULL.
static inline const struct sockaddr *geoledger_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

/// The connection's socket, or -1.
static inline int geoledger_mhd_connection_socket(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : (int) info->connect_fd;
}

/// The size of the request line and headers, once they have all arrived; 0 before.
static inline size_t geoledger_mhd_request_head_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

/// What the connection's start set as its context, or NULL.
static inline void *geoledger_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

/// Milliseconds since the socket last received data, or -1 when the system does not say.
static inline long long geoledger_socket_last_data_received_ms(int socket) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    if (getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return -1;
    return (long long) info.tcpi_last_data_recv;
}

/// The connection's GnuTLS session (a gnutls_session_t), or NULL on a plain connection.
static inline void *geoledger_mhd_tls_session(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_GNUTLS_SESSION);
    return info == NULL ? NULL : info->tls_session;
}

/// The connections the daemon has open now.
static inline unsigned int geoledger_mhd_open_connections(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_CURRENT_CONNECTIONS);
    return info == NULL ? 0 : info->num_connections;
}
