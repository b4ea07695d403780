// jemalloc replaces the C library's malloc for the whole process once it is linked in (see Allocator.swift).
#include <jemalloc/jemalloc.h>
