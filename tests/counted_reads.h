// A DiscoveryCache read seam for the tests of discovery and its cache: small files are
// read as the exporter reads them (ReadUntrustedFile), and every read is counted by path,
// from whichever thread discovery reads on.
#ifndef SCX_TESTS_COUNTED_READS_H_
#define SCX_TESTS_COUNTED_READS_H_

#include <cstdint>
#include <map>
#include <mutex>
#include <string>

#include "base/untrusted_file.h"
#include "engine/discovery/cache.h"

namespace scx {
namespace testing {

class CountedReads {
 public:
  // A DiscoveryCache::Options::read_file that counts each read here: it must not
  // outlive this object.
  decltype(DiscoveryCache::Options::read_file) Reader() {
    return [this](const std::string& path, std::int64_t max_bytes, std::string* contents) {
      {
        std::lock_guard<std::mutex> lock(mutex_);
        ++reads_[path];
      }
      return ReadUntrustedFile(path, max_bytes, contents);
    };
  }

  // How often `path` was read since the last Clear.
  int Of(const std::string& path) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = reads_.find(path);
    return it == reads_.end() ? 0 : it->second;
  }

  // Every path read since the last Clear, with its count.
  std::map<std::string, int> All() {
    std::lock_guard<std::mutex> lock(mutex_);
    return reads_;
  }

  void Clear() {
    std::lock_guard<std::mutex> lock(mutex_);
    reads_.clear();
  }

 private:
  std::mutex mutex_;
  std::map<std::string, int> reads_;
};

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_COUNTED_READS_H_
