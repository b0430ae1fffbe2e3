// Tests for pairing a scan's brains with the previous scan's by runtime dir.
#include "engine/discovery/runtime_dir_pairing.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace scx {
namespace {

Brain At(const std::string& name, const std::string& runtime_dir) {
  Brain brain;
  brain.name = name;
  brain.runtime_dir = runtime_dir;
  return brain;
}

// The pairing as the scanner made it before: every previous runtime dir in a hash
// map, looked up for each brain in turn.
std::vector<std::size_t> ReferencePairing(const std::vector<Brain>& previous,
                                          const std::vector<Brain>& brains) {
  std::unordered_map<std::string_view, std::size_t> by_runtime_dir;
  for (std::size_t i = 0; i < previous.size(); ++i) {
    by_runtime_dir.emplace(previous[i].runtime_dir, i);
  }
  std::vector<std::size_t> pairs(brains.size(), kNoPrevious);
  for (std::size_t i = 0; i < brains.size(); ++i) {
    auto found = by_runtime_dir.find(brains[i].runtime_dir);
    if (found == by_runtime_dir.end()) continue;
    pairs[i] = found->second;
    by_runtime_dir.erase(found);
  }
  return pairs;
}

void SortByName(std::vector<Brain>* brains) {
  std::sort(brains->begin(), brains->end(),
            [](const Brain& a, const Brain& b) { return a.name < b.name; });
}

TEST(RuntimeDirPairingTest, SameNameSameDirIsPaired) {
  const std::vector<Brain> previous = {At("a", "/r/1"), At("b", "/r/2")};
  const std::vector<Brain> brains = {At("a", "/r/1"), At("b", "/r/2")};
  EXPECT_EQ((std::vector<std::size_t>{0, 1}), PairByRuntimeDir(previous, brains));
}

TEST(RuntimeDirPairingTest, ARenamedBrainKeepsItsRecordAndANewOneHasNone) {
  // "b" took the name "a" had; "a" is now "c"; "/r/9" is new; "/r/3" is gone.
  const std::vector<Brain> previous = {At("a", "/r/1"), At("b", "/r/2"), At("d", "/r/3")};
  const std::vector<Brain> brains = {At("a", "/r/2"), At("c", "/r/1"), At("e", "/r/9")};
  EXPECT_EQ((std::vector<std::size_t>{1, 0, kNoPrevious}), PairByRuntimeDir(previous, brains));
}

TEST(RuntimeDirPairingTest, EmptyLists) {
  EXPECT_TRUE(PairByRuntimeDir({}, {}).empty());
  EXPECT_EQ((std::vector<std::size_t>{kNoPrevious}), PairByRuntimeDir({}, {At("a", "/r/1")}));
  EXPECT_TRUE(PairByRuntimeDir({At("a", "/r/1")}, {}).empty());
}

// A previous brain is given once even when two brains name its runtime dir.
TEST(RuntimeDirPairingTest, APreviousBrainGoesToOneBrainAtMost) {
  const std::vector<Brain> previous = {At("a", "/r/1")};
  const std::vector<Brain> brains = {At("a", "/r/1"), At("b", "/r/1")};
  EXPECT_EQ((std::vector<std::size_t>{0, kNoPrevious}), PairByRuntimeDir(previous, brains));
}

// Scan after scan on random fleets: brains renamed (names swapped, shifted), new,
// gone, moved to another runtime dir. With unique runtime dirs in each list, the
// answer is the hash map's.
TEST(RuntimeDirPairingTest, AgreesWithTheHashMapOnRandomChurn) {
  std::mt19937 random(20261201);
  for (int round = 0; round < 200; ++round) {
    const int size = std::uniform_int_distribution<int>(0, 60)(random);
    std::vector<Brain> previous;
    for (int i = 0; i < size; ++i) {
      previous.push_back(At("n" + std::to_string(i), "/r/" + std::to_string(i)));
    }
    SortByName(&previous);
    std::vector<Brain> brains;
    int next_dir = size;
    for (const Brain& brain : previous) {
      switch (std::uniform_int_distribution<int>(0, 9)(random)) {
        case 0:
          break;  // gone
        case 1:   // another name, same dir
          brains.push_back(At("m" + std::to_string(next_dir++), brain.runtime_dir));
          break;
        case 2:  // same name, another dir
          brains.push_back(At(brain.name, "/r/" + std::to_string(next_dir++)));
          break;
        case 3:  // a new brain beside it
          brains.push_back(brain);
          brains.push_back(At("n" + std::to_string(next_dir), "/r/" + std::to_string(next_dir)));
          ++next_dir;
          break;
        default:
          brains.push_back(brain);
          break;
      }
    }
    // Some names swapped between two brains (their dirs stay).
    for (int swaps = std::uniform_int_distribution<int>(0, 3)(random); swaps > 0; --swaps) {
      if (brains.size() < 2) break;
      std::uniform_int_distribution<std::size_t> pick(0, brains.size() - 1);
      std::swap(brains[pick(random)].name, brains[pick(random)].name);
    }
    SortByName(&brains);
    SCOPED_TRACE("round " + std::to_string(round));
    EXPECT_EQ(ReferencePairing(previous, brains), PairByRuntimeDir(previous, brains));
  }
}

}  // namespace
}  // namespace scx
