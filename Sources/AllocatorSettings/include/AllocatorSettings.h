#ifndef GEOLEDGER_ALLOCATOR_SETTINGS_H
#define GEOLEDGER_ALLOCATOR_SETTINGS_H

/// jemalloc's options for the executables that link this target, read by jemalloc at start-up; the MALLOC_CONF
/// environment variable still overrides them.
extern const char *malloc_conf;

#endif
