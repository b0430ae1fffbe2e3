// The insides of DiscoveryCache (discovery.h): the parses of m1nd's small files kept
// between discoveries, each with the stamp of the file it was read from. Internal to
// engine/.
#ifndef SCX_ENGINE_DISCOVERY_CACHE_H_
#define SCX_ENGINE_DISCOVERY_CACHE_H_

#include <cstdint>
#include <utility>

#include "base/stamp_cache.h"
#include "engine/discovery.h"
#include "engine/discovery_reads.h"
#include "engine/m1nd_files.h"

namespace scx {

struct DiscoveryCache::Impl {
  explicit Impl(Options given) : options(std::move(given)) {
    if (!options.now_ns) options.now_ns = RealtimeNowNs;
  }

  void BeginWalk() {
    walk_started_ns = options.now_ns();
    manifests.BeginWalk();
    instances.BeginWalk();
    ingest_roots.BeginWalk();
    ingest_roots_absent.BeginWalk();
  }

  void DropUnseen() {
    manifests.DropUnseen();
    instances.DropUnseen();
    ingest_roots.DropUnseen();
    ingest_roots_absent.DropUnseen();
  }

  Options options;
  std::int64_t walk_started_ns = 0;  // by options.now_ns, before the walk read anything
  StampCache<ManifestParse> manifests;
  StampCache<InstanceRecordParse> instances;
  StampCache<IngestRootsParse> ingest_roots;
  // A project brain folder's ingest_roots.json known to be absent, by the folder's
  // manifest path (so that a warm walk makes no path of it), with
  // the stamp of the folder it is missing from: any file made in the folder since
  // changes the folder's mtime and ctime. Most project brains have none, and a warm
  // discovery would otherwise try to open one in every folder at every scan.
  StampCache<bool> ingest_roots_absent;
};

// How `cache` (may be null) reads small files.
const ReadFileFunction& ReaderOf(const DiscoveryCache::Impl* cache);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_CACHE_H_
