// Keeping the heap small (glibc's malloc tunables).
#include "exporter/heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace scx {

namespace {
constexpr int kMaxMallocArenas = 2;
}  // namespace

void LimitMallocArenas() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, kMaxMallocArenas);
#endif
}

void ReleaseFreeHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace scx
