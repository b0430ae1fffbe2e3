// ViewIndex: string views to indices in one flat table (open addressing, linear
// probing, each key's hash kept beside its view). For the indexes a scan builds over
// every brain and throws away: std::unordered_map makes a heap node per key and
// reaches it through a bucket, two cache misses a look-up once a fleet outgrows the
// cache; this makes one array and probes it in place. The viewed text must
// outlive the index. Pure.
//
// Thread-safety: Find may be called from several threads at once while nothing is
// emplaced; Emplace needs one thread.
#ifndef SCX_BASE_VIEW_INDEX_H_
#define SCX_BASE_VIEW_INDEX_H_

#include <cstddef>
#include <cstdint>
#include <limits>
#include <string_view>
#include <utility>
#include <vector>

namespace scx {

class ViewIndex {
 public:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  static constexpr std::size_t kMaxValue = std::numeric_limits<std::uint32_t>::max();

  // Room for `expected` keys before the table grows.
  explicit ViewIndex(std::size_t expected = 0);

  // Maps `key` to `value` (below kMaxValue: an index into an array) unless `key` is
  // mapped already. Returns the value `key` maps to now, and true when it was emplaced
  // by this call.
  std::pair<std::size_t, bool> Emplace(std::string_view key, std::size_t value);

  // The value `key` maps to, or kNone.
  std::size_t Find(std::string_view key) const;

  // Keys mapped.
  std::size_t size() const { return size_; }

 private:
  // A view and two 32-bit words, nothing else: a scan builds several tables of one
  // slot a brain.
  struct Slot {
    std::string_view key;
    std::uint32_t hash = 0;        // the low bits of the key's hash
    std::uint32_t value = kEmpty;  // kEmpty: an empty slot
  };
  static constexpr std::uint32_t kEmpty = std::numeric_limits<std::uint32_t>::max();

  // The slot holding `key`, or the empty one where it would go.
  std::size_t Probe(std::string_view key, std::uint32_t hash) const;
  // Doubles the table, keeping every key.
  void Grow();

  std::vector<Slot> slots_;  // a power of two, never more than half full
  std::size_t size_ = 0;
};

}  // namespace scx

#endif  // SCX_BASE_VIEW_INDEX_H_
