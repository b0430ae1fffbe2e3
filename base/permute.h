// Reordering a vector in place by a permutation of its indices, each element moved
// once: for lists of every brain, where a reordered copy would double them. Pure.
#ifndef SCX_BASE_PERMUTE_H_
#define SCX_BASE_PERMUTE_H_

#include <cstddef>
#include <utility>
#include <vector>

namespace scx {

// Reorders `items` so that item k is the one at order[k] before. `order` must be a
// permutation of 0 .. items->size() - 1; it is taken by value and used up. Each item
// is moved once, along the cycles of the order, plus one move per cycle.
template <typename T>
void PermuteInPlace(std::vector<std::size_t> order, std::vector<T>* items) {
  for (std::size_t start = 0; start < order.size(); ++start) {
    if (order[start] == start) continue;
    T held = std::move((*items)[start]);
    std::size_t hole = start;
    while (order[hole] != start) {
      const std::size_t next = order[hole];
      (*items)[hole] = std::move((*items)[next]);
      order[hole] = hole;  // in place now
      hole = next;
    }
    (*items)[hole] = std::move(held);
    order[hole] = hole;
  }
}

}  // namespace scx

#endif  // SCX_BASE_PERMUTE_H_
