#include <zlib.h>

// zlib's init functions are macros, which Swift cannot call.

/// Inflates gzip members only (window bits 15, +16 for the gzip wrapper).
static inline int geoledger_inflate_init_gzip(z_stream *stream) {
    return inflateInit2(stream, 15 + 16);
}

/// Deflates into one gzip member at `level`.
static inline int geoledger_deflate_init_gzip(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
}
