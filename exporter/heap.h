// How the process keeps its heap small: few malloc arenas for many worker threads,
// and freed memory handed back to the system after each render (glibc; elsewhere
// these do nothing).
#ifndef SCX_EXPORTER_HEAP_H_
#define SCX_EXPORTER_HEAP_H_

namespace scx {

// At most two malloc arenas. glibc otherwise gives up to eight per core to threads that
// allocate at once, and each keeps the memory its largest burst needed (measured: the
// HTTP workers' arenas held about 200 MB after eight concurrent scrapes of 10,000
// brains). Call once, before any thread starts.
void LimitMallocArenas();

// Returns the heap's free pages to the system (malloc_trim). Called after a snapshot
// is rendered, when the render's transient memory has just been freed.
void ReleaseFreeHeap();

}  // namespace scx

#endif  // SCX_EXPORTER_HEAP_H_
