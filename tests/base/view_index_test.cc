// Tests for the flat index of string views.
#include "base/view_index.h"

#include <gtest/gtest.h>

#include <cstddef>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace scx {
namespace {

TEST(ViewIndexTest, EmplaceKeepsTheFirstValue) {
  ViewIndex index;
  EXPECT_EQ(ViewIndex::kNone, index.Find("a"));
  EXPECT_EQ(std::make_pair(std::size_t{3}, true), index.Emplace("a", 3));
  EXPECT_EQ(std::make_pair(std::size_t{3}, false), index.Emplace("a", 4));
  EXPECT_EQ(3u, index.Find("a"));
  EXPECT_EQ(ViewIndex::kNone, index.Find("b"));
  EXPECT_EQ(1u, index.size());
}

TEST(ViewIndexTest, TheEmptyKeyIsAKeyLikeAnother) {
  ViewIndex index(1);
  EXPECT_TRUE(index.Emplace("", 7).second);
  EXPECT_EQ(7u, index.Find(""));
}

// Far more keys than it was sized for (it grows), keys sharing long prefixes, some
// emplaced twice: the answers of std::unordered_map.
TEST(ViewIndexTest, AgreesWithAnUnorderedMapWhileGrowing) {
  std::mt19937 random(7);
  std::vector<std::string> keys;
  for (int i = 0; i < 5000; ++i) {
    keys.push_back("/srv/m1nd/runtime/project-brains/" +
                   std::to_string(std::uniform_int_distribution<int>(0, 3000)(random)));
  }
  ViewIndex index(10);
  std::unordered_map<std::string, std::size_t> reference;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const auto [it, inserted] = reference.emplace(keys[i], i);
    EXPECT_EQ(std::make_pair(it->second, inserted), index.Emplace(keys[i], i));
  }
  EXPECT_EQ(reference.size(), index.size());
  for (int probe = 0; probe < 4000; ++probe) {
    const std::string key = "/srv/m1nd/runtime/project-brains/" + std::to_string(probe);
    auto found = reference.find(key);
    EXPECT_EQ(found == reference.end() ? ViewIndex::kNone : found->second, index.Find(key));
  }
}

}  // namespace
}  // namespace scx
