// String views to indices in one flat table (view_index.h).
#include "base/view_index.h"

#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <utility>
#include <vector>

namespace scx {

namespace {

std::uint32_t HashOf(std::string_view key) {
  return static_cast<std::uint32_t>(std::hash<std::string_view>()(key));
}

}  // namespace

ViewIndex::ViewIndex(std::size_t expected) {
  std::size_t capacity = 16;
  while (capacity < 2 * expected) capacity *= 2;
  slots_.resize(capacity);
}

std::size_t ViewIndex::Probe(std::string_view key, std::uint32_t hash) const {
  const std::size_t mask = slots_.size() - 1;
  for (std::size_t at = hash & mask;; at = (at + 1) & mask) {
    const Slot& slot = slots_[at];
    if (slot.value == kEmpty || (slot.hash == hash && slot.key == key)) return at;
  }
}

void ViewIndex::Grow() {
  std::vector<Slot> old(slots_.size() * 2);
  old.swap(slots_);
  for (const Slot& slot : old) {
    if (slot.value != kEmpty) slots_[Probe(slot.key, slot.hash)] = slot;
  }
}

std::pair<std::size_t, bool> ViewIndex::Emplace(std::string_view key, std::size_t value) {
  assert(value < kMaxValue);
  const std::uint32_t hash = HashOf(key);
  Slot* slot = &slots_[Probe(key, hash)];
  if (slot->value != kEmpty) return {slot->value, false};
  if (2 * (size_ + 1) > slots_.size()) {
    Grow();
    slot = &slots_[Probe(key, hash)];
  }
  *slot = Slot{key, hash, static_cast<std::uint32_t>(value)};
  ++size_;
  return {value, true};
}

std::size_t ViewIndex::Find(std::string_view key) const {
  const std::uint32_t value = slots_[Probe(key, HashOf(key))].value;
  return value == kEmpty ? kNone : value;
}

}  // namespace scx
