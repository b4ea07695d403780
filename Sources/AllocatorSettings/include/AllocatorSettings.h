#ifndef GEOLEDGER_ALLOCATOR_SETTINGS_H
#define GEOLEDGER_ALLOCATOR_SETTINGS_H

/// jemalloc's options for the executables that link this target, read by jemalloc at start-up; the MALLOC_CONF
/// environment variable still overrides them.
extern const char *malloc_conf;

/// From now on, pages freed and left unused for `milliseconds` are handed back to the system, in every arena and
/// in those made later, instead of kept for reuse: for a process that runs for months, whose peaks should not stay
/// resident. Returns 0, or the error jemalloc gave.
int allocator_return_freed_pages(long milliseconds);

#endif
