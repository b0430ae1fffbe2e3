// Tests for reordering a vector in place by a permutation.
#include "base/permute.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace scx {
namespace {

TEST(PermuteInPlaceTest, AgreesWithACopyOnEveryOrderOfFive) {
  std::vector<std::size_t> order(5);
  std::iota(order.begin(), order.end(), 0);
  do {
    std::vector<std::string> items = {"a", "b", "c", "d", "e"};
    std::vector<std::string> want;
    for (std::size_t from : order) want.push_back(items[from]);
    PermuteInPlace(order, &items);
    EXPECT_EQ(want, items);
  } while (std::next_permutation(order.begin(), order.end()));
}

// Move-only items, long cycles and fixed points mixed: each item arrives once.
TEST(PermuteInPlaceTest, MovesItemsThatCannotBeCopied) {
  std::mt19937 random(7);
  for (std::size_t size : {0u, 1u, 2u, 100u, 1000u}) {
    std::vector<std::size_t> order(size);
    std::iota(order.begin(), order.end(), 0);
    std::shuffle(order.begin(), order.begin() + size / 2, random);  // the rest stays
    std::vector<std::unique_ptr<std::size_t>> items;
    for (std::size_t i = 0; i < size; ++i) items.push_back(std::make_unique<std::size_t>(i));
    PermuteInPlace(order, &items);
    for (std::size_t k = 0; k < size; ++k) {
      ASSERT_NE(nullptr, items[k]);
      EXPECT_EQ(order[k], *items[k]);
    }
  }
}

}  // namespace
}  // namespace scx
