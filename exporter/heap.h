// How the process keeps its heap small: few malloc arenas for many worker threads,
// large buffers always mapped and unmapped on their own, and freed memory handed back
// to the system after each render (glibc; elsewhere these do nothing).
#ifndef SCX_EXPORTER_HEAP_H_
#define SCX_EXPORTER_HEAP_H_

#include <cstddef>

namespace scx {

// Allocations of at least this size get their own mapping, returned to the system
// as soon as they are freed.
inline constexpr std::size_t kMmapThresholdBytes = std::size_t{256} * 1024;

// Call once, before any thread starts:
// - at most two malloc arenas. glibc otherwise gives up to eight per core to threads
//   that allocate at once, and each keeps the memory its largest burst needed (the
//   HTTP workers' arenas kept several times the exporter's own memory after a few
//   concurrent scrapes of a large fleet);
// - a fixed mmap threshold (kMmapThresholdBytes). glibc raises its threshold after
//   each large buffer it unmaps, up to 32 MB, after which the multi-megabyte bodies
//   of every scan come from the heap and leave it fragmented.
void TuneMallocForServing();

// Returns the heap's free pages to the system (malloc_trim). Called after a snapshot
// is published, when the render's transient memory has just been freed.
void ReleaseFreeHeap();

}  // namespace scx

#endif  // SCX_EXPORTER_HEAP_H_
