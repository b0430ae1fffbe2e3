// The cache of m1nd's small files that discovery keeps between scans
// (discovery_cache.h).
#include "engine/discovery_cache.h"

#include <cstddef>
#include <utility>

#include "engine/discovery.h"
#include "engine/discovery_reads.h"

namespace scx {

DiscoveryCache::DiscoveryCache() : DiscoveryCache(Options()) {}

DiscoveryCache::DiscoveryCache(Options options) : impl_(new Impl(std::move(options))) {}

DiscoveryCache::~DiscoveryCache() = default;

std::size_t DiscoveryCache::size() const {
  return impl_->manifests.size() + impl_->instances.size() + impl_->ingest_roots.size();
}

const ReadFileFunction& ReaderOf(const DiscoveryCache::Impl* cache) {
  static const ReadFileFunction kReadBrainFile;  // empty: ReadBrainFile
  return cache != nullptr ? cache->options.read_file : kReadBrainFile;
}

}  // namespace scx
