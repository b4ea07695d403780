#include "AllocatorSettings.h"

#include <jemalloc/jemalloc.h>
#include <sys/types.h>

#define STRINGIFY_HELPER(x) #x
#define STRINGIFY(x) STRINGIFY_HELPER(x)

// Freed pages are kept for reuse rather than handed back to the system and faulted in again: replay frees and
// allocates each chunk's tens of megabytes, and handing them back cost it about 5% of its time.
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";

int allocator_return_freed_pages(long milliseconds) {
    ssize_t decay = milliseconds;
    const char *names[] = {
        "arenas.dirty_decay_ms", "arenas.muzzy_decay_ms",
        "arena." STRINGIFY(MALLCTL_ARENAS_ALL) ".dirty_decay_ms",
        "arena." STRINGIFY(MALLCTL_ARENAS_ALL) ".muzzy_decay_ms",
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        int failed = mallctl(names[i], NULL, NULL, &decay, sizeof decay);
        if (failed) return failed;
    }
    return 0;
}
