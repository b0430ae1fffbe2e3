// A std::mutex that clang's thread-safety analysis understands (libstdc++'s
// std::mutex carries no annotations), its scoped lock, and the condition variable
// that waits on it.
//
// Thread-safety: Mutex is the synchronisation itself; MutexLock and CondVar are used
// by one thread each call.
#ifndef SCX_BASE_MUTEX_H_
#define SCX_BASE_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "base/thread_annotations.h"

namespace scx {

class SCX_CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  void lock() SCX_ACQUIRE() { mutex_.lock(); }
  void unlock() SCX_RELEASE() { mutex_.unlock(); }

 private:
  std::mutex mutex_;
};

// Holds `mutex` from construction to destruction.
class SCX_SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mutex) SCX_ACQUIRE(mutex) : mutex_(mutex) { mutex_->lock(); }
  ~MutexLock() SCX_RELEASE() { mutex_->unlock(); }
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

 private:
  Mutex* const mutex_;
};

// Waits for a condition on a Mutex the caller holds; the mutex is released while
// waiting and held again on return, as with std::condition_variable.
class CondVar {
 public:
  void Wait(Mutex* mutex) SCX_REQUIRES(mutex) { cv_.wait(*mutex); }

  // False when `deadline` passed.
  template <typename Clock, typename Duration>
  bool WaitUntil(Mutex* mutex, const std::chrono::time_point<Clock, Duration>& deadline)
      SCX_REQUIRES(mutex) {
    return cv_.wait_until(*mutex, deadline) == std::cv_status::no_timeout;
  }

  void NotifyAll() { cv_.notify_all(); }

 private:
  std::condition_variable_any cv_;
};

}  // namespace scx

#endif  // SCX_BASE_MUTEX_H_
