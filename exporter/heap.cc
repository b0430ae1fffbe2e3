// Keeping the heap small (glibc's malloc tunables).
#include "exporter/heap.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace scx {

namespace {
constexpr int kMaxMallocArenas = 2;
}  // namespace

void TuneMallocForServing() {
#if defined(__GLIBC__)
  mallopt(M_ARENA_MAX, kMaxMallocArenas);
  mallopt(M_MMAP_THRESHOLD, static_cast<int>(kMmapThresholdBytes));
#endif
}

void ReleaseFreeHeap() {
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace scx
