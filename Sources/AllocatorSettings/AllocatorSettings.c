#include "AllocatorSettings.h"

#include <errno.h>
#include <jemalloc/jemalloc.h>
#include <stdio.h>
#include <sys/types.h>

// Freed pages are kept for reuse rather than handed back to the system and faulted in again: replay frees and
// allocates each chunk's tens of megabytes, and handing them back cost it about 5% of its time.
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";

int allocator_return_freed_pages(long milliseconds) {
    ssize_t decay = milliseconds;
    // The arenas made from now on.
    int failed = mallctl("arenas.dirty_decay_ms", NULL, NULL, &decay, sizeof decay);
    if (!failed) failed = mallctl("arenas.muzzy_decay_ms", NULL, NULL, &decay, sizeof decay);
    if (failed) return failed;
    // The arenas made so far: an index not in use yet answers EFAULT, and takes the new default when it is.
    unsigned count = 0;
    size_t size = sizeof count;
    failed = mallctl("arenas.narenas", &count, &size, NULL, 0);
    if (failed) return failed;
    for (unsigned arena = 0; arena < count; arena++) {
        char name[64];
        const char *settings[] = {"dirty_decay_ms", "muzzy_decay_ms"};
        for (int i = 0; i < 2; i++) {
            snprintf(name, sizeof name, "arena.%u.%s", arena, settings[i]);
            failed = mallctl(name, NULL, NULL, &decay, sizeof decay);
            if (failed && failed != EFAULT) return failed;
        }
    }
    return 0;
}
