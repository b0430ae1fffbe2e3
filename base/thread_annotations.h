// Clang thread-safety annotations (-Wthread-safety), as in abseil's
// thread_annotations.h: they state which mutex guards which member and which lock a
// function needs, and clang checks them at compile time. They expand to nothing
// with other compilers.
#ifndef SCX_BASE_THREAD_ANNOTATIONS_H_
#define SCX_BASE_THREAD_ANNOTATIONS_H_

#if defined(__clang__)
#define SCX_THREAD_ANNOTATION(x) __attribute__((x))
#else
#define SCX_THREAD_ANNOTATION(x)
#endif

// A type that is a lock (a mutex).
#define SCX_CAPABILITY(name) SCX_THREAD_ANNOTATION(capability(name))
// An RAII type that holds a lock for its lifetime.
#define SCX_SCOPED_CAPABILITY SCX_THREAD_ANNOTATION(scoped_lockable)
// A member read or written only with `mu` held.
#define SCX_GUARDED_BY(mu) SCX_THREAD_ANNOTATION(guarded_by(mu))
// A pointer member whose pointee is used only with `mu` held.
#define SCX_PT_GUARDED_BY(mu) SCX_THREAD_ANNOTATION(pt_guarded_by(mu))
// A function the caller must call with `...` held.
#define SCX_REQUIRES(...) SCX_THREAD_ANNOTATION(requires_capability(__VA_ARGS__))
// A function the caller must call without `...` held (it takes it).
#define SCX_EXCLUDES(...) SCX_THREAD_ANNOTATION(locks_excluded(__VA_ARGS__))
// A function that takes, or gives back, `...` (the object itself when empty).
#define SCX_ACQUIRE(...) SCX_THREAD_ANNOTATION(acquire_capability(__VA_ARGS__))
#define SCX_RELEASE(...) SCX_THREAD_ANNOTATION(release_capability(__VA_ARGS__))
// A function that returns a reference to the lock `x`.
#define SCX_RETURN_CAPABILITY(x) SCX_THREAD_ANNOTATION(lock_returned(x))

#endif  // SCX_BASE_THREAD_ANNOTATIONS_H_
