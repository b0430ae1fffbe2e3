// Whether this process sees a brain's runtime dir, so that a missing store can be
// told from a store it cannot see. "Absent" (no store, no verdict, silent) is only a
// store file missing from a runtime dir that is there and can be listed; a runtime dir
// that is missing, cannot be listed, or was emptied while it held a store (an unmounted
// volume, a hostPath the pod lacks) is "unseen": the brain keeps its last verdict,
// marked stale. And a brain discovery no longer finds is "gone" only when its runtime
// dir is missing from a folder this process sees. The judgements are pure; the facts
// come from ProbeRuntimeDir and ProbeGone.
//
// Thread-safety: pure functions and plain values; the probes only stat and list.
#ifndef SCX_ENGINE_DISCOVERY_RUNTIME_DIR_VIEW_H_
#define SCX_ENGINE_DISCOVERY_RUNTIME_DIR_VIEW_H_

#include <string>

namespace scx {

// What ProbeRuntimeDir found of a runtime dir whose store file is missing.
struct RuntimeDirFacts {
  int stat_errno = 0;     // of stat(runtime_dir): 0 when it succeeded
  bool is_dir = false;    // it exists and is a directory
  int list_errno = 0;     // of listing it: 0 when it could be listed
  bool is_empty = false;  // listed, and holds nothing but "." and ".."
};

// Pure: why a runtime dir with a missing store is unseen, or empty when the store is
// really absent. `held_a_store`: the brain had a store (a verdict) before, so an
// emptied folder is taken for an unmounted one rather than a new brain. The reason
// has no subject ("is missing: ..."): the caller names the folder. Discovery asks the
// same of the folders it reads (an owner's ingest folder, its runtime root), with
// `held_a_store` false.
std::string WhyRuntimeDirUnseen(const RuntimeDirFacts& facts, bool held_a_store);

// Stats `runtime_dir` and checks it can be searched; lists it when `held_a_store`.
RuntimeDirFacts ProbeRuntimeDir(const std::string& runtime_dir, bool held_a_store);

// What ProbeGone found of a runtime dir discovery no longer names.
struct GoneFacts {
  int stat_errno = 0;  // of stat(runtime_dir)
  // Its parent folder can be listed, or the nearest existing folder above it can and
  // holds something (an empty one is what an unmount leaves).
  bool parent_listable = false;
};

// Pure: the runtime dir was removed: missing from a folder this process sees.
bool IsGone(const GoneFacts& facts);

GoneFacts ProbeGone(const std::string& runtime_dir);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_RUNTIME_DIR_VIEW_H_
