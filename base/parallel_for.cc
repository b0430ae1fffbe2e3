// A parallel loop over indices with threads started for the call.
#include "base/parallel_for.h"

#include <algorithm>
#include <exception>
#include <system_error>
#include <thread>
#include <vector>

#include "base/usable_cpus.h"

namespace scx {

int ThreadsFor(const Parallelism& parallelism, std::size_t count) {
  const std::size_t min_items = std::max<std::size_t>(parallelism.min_items, 1);
  if (count < min_items) return 1;
  int threads = parallelism.threads;
  if (threads <= 0) threads = UsableCpus();
  threads = std::clamp(threads, 1, kMaxParallelThreads);
  return static_cast<int>(std::min<std::size_t>(threads, 1 + count / min_items));
}

Parallelism WithUsableCpus(Parallelism parallelism) {
  if (parallelism.threads <= 0) parallelism.threads = UsableCpus();
  return parallelism;
}

bool ParallelFor(std::size_t count, const Parallelism& parallelism,
                 const std::function<void(std::size_t)>& body, const std::atomic<bool>* stop) {
  auto stopped = [stop] { return stop != nullptr && stop->load(std::memory_order_relaxed); };
  // Every thread takes the next index in turn.
  std::atomic<std::size_t> next{0};
  auto run = [&] {
    for (std::size_t i = next.fetch_add(1); i < count && !stopped(); i = next.fetch_add(1)) {
      body(i);
    }
  };
  const auto threads = static_cast<std::size_t>(ThreadsFor(parallelism, count));
  std::vector<std::exception_ptr> failures(threads);
  // Runs `run` on thread `t`, keeping what it throws; the others stop at their next index.
  auto guarded = [&run, &next, &failures, count](std::size_t t) {
    try {
      run();
    } catch (...) {
      failures[t] = std::current_exception();
      next.store(count);
    }
  };
  std::vector<std::thread> helpers;
  helpers.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t) {
    try {
      helpers.emplace_back(guarded, t);
    } catch (const std::system_error&) {
      break;  // no thread to be had: the others (this one at least) do it all
    }
  }
  guarded(0);
  for (std::thread& helper : helpers) helper.join();
  for (const std::exception_ptr& failure : failures) {
    if (failure) std::rethrow_exception(failure);
  }
  return !stopped();
}

}  // namespace scx
