// What every fuzz target uses to state an invariant: a violated one aborts, which
// libFuzzer reports as a crash with the input that caused it.
#ifndef SCX_FUZZ_FUZZ_CHECK_H_
#define SCX_FUZZ_FUZZ_CHECK_H_

#include <cstdio>
#include <cstdlib>

#define SCX_FUZZ_CHECK(condition)                                                            \
  do {                                                                                       \
    if (!(condition)) {                                                                      \
      std::fprintf(stderr, "%s:%d: invariant failed: %s\n", __FILE__, __LINE__, #condition); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

#endif  // SCX_FUZZ_FUZZ_CHECK_H_
