// Runs a loop body over the indices 0..count-1 on a few threads: the calling thread
// and helpers started for the call and joined before it returns. Used to read many
// small files (manifests, stores) on every CPU the process may use; the results go
// into per-index slots and are used in index order afterwards, so the order never
// depends on the threads.
//
// Thread-safety: `body` runs concurrently for different indices; it may only change
// what belongs to its index and read what no thread changes during the call.
#ifndef SCX_BASE_PARALLEL_FOR_H_
#define SCX_BASE_PARALLEL_FOR_H_

#include <atomic>
#include <cstddef>
#include <functional>

namespace scx {

inline constexpr int kMaxParallelThreads = 4;

struct Parallelism {
  // Threads, the calling one included. 0 (or less): as many as the CPUs the process may
  // use (its affinity and its cgroup's CPU quota, see base/usable_cpus.h), at most
  // kMaxParallelThreads. 1: the calling thread alone.
  int threads = 0;
  // Fewer indices than this run on the calling thread alone, and each further
  // thread needs this many more: starting a thread costs more than a few dozen
  // small reads.
  std::size_t min_items = 32;
};

// The threads ParallelFor uses for `count` indices.
int ThreadsFor(const Parallelism& parallelism, std::size_t count);

// `parallelism` with an automatic thread count (threads <= 0) replaced by UsableCpus(),
// read once: for a caller that runs several loops, such as a scan, so that /proc and
// /sys are read once for all of them rather than at each loop.
Parallelism WithUsableCpus(Parallelism parallelism);

// Calls body(i) once for every i in [0, count), each index on one of
// ThreadsFor(parallelism, count) threads. Once `stop` (may be null) is set no index
// is started; then it returns false and some indices were never run. An exception
// from `body` stops the others too and is rethrown here after every thread ended.
bool ParallelFor(std::size_t count, const Parallelism& parallelism,
                 const std::function<void(std::size_t)>& body,
                 const std::atomic<bool>* stop = nullptr);

}  // namespace scx

#endif  // SCX_BASE_PARALLEL_FOR_H_
