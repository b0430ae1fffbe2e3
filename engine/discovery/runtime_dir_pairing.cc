// Pairing a scan's brains with the previous scan's by runtime dir
// (runtime_dir_pairing.h).
#include "engine/discovery/runtime_dir_pairing.h"

#include <cstddef>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scx {

std::vector<std::size_t> PairByRuntimeDir(const std::vector<Brain>& previous,
                                          const std::vector<Brain>& brains) {
  std::vector<std::size_t> pairs(brains.size(), kNoPrevious);
  std::vector<bool> paired(previous.size(), false);
  // 1. Brains that kept their name and runtime dir: one walk of both sorted lists, in
  // memory order. A hash map of every runtime dir, built and probed at every scan,
  // grew much faster than the fleet once it outgrew the cache (warm_scan_bench).
  std::size_t unpaired = 0;
  std::size_t j = 0;
  for (std::size_t i = 0; i < brains.size(); ++i) {
    const Brain& brain = brains[i];
    while (j < previous.size() && previous[j].name < brain.name) ++j;
    if (j < previous.size() && previous[j].name == brain.name &&
        previous[j].runtime_dir == brain.runtime_dir) {
      pairs[i] = j;
      paired[j] = true;
      ++j;
    } else {
      ++unpaired;
    }
  }
  if (unpaired == 0) return pairs;
  // 2. The others (renamed, new, moved) by runtime dir.
  std::unordered_map<std::string_view, std::size_t> by_runtime_dir;
  by_runtime_dir.reserve(previous.size());
  for (std::size_t k = 0; k < previous.size(); ++k) {
    if (!paired[k]) by_runtime_dir.emplace(previous[k].runtime_dir, k);
  }
  for (std::size_t i = 0; i < brains.size() && !by_runtime_dir.empty(); ++i) {
    if (pairs[i] != kNoPrevious) continue;
    auto found = by_runtime_dir.find(brains[i].runtime_dir);
    if (found == by_runtime_dir.end()) continue;
    pairs[i] = found->second;
    by_runtime_dir.erase(found);  // one brain per previous brain
  }
  return pairs;
}

}  // namespace scx
