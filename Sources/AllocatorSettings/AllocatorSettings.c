#include "AllocatorSettings.h"

// Freed pages are kept for reuse rather than handed back to the system and faulted in again: replay frees and
// allocates each chunk's tens of megabytes, and handing them back cost it about 5% of its time.
const char *malloc_conf = "dirty_decay_ms:-1,muzzy_decay_ms:-1";
