// Which brains a view shows when asked for part of a fleet: `state=S[,S...]` (the
// `state` values of docs/api.md) and `limit=N` of a request's query, for
// GET /api/v1/brains and the landing page. Pure.
#ifndef SCX_EXPORTER_RENDER_BRAIN_FILTER_H_
#define SCX_EXPORTER_RENDER_BRAIN_FILTER_H_

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "engine/scanner.h"

namespace scx {

struct BrainFilter {
  std::vector<BrainState> states;  // empty: every state
  bool has_limit = false;          // `limit` was given
  std::size_t limit = 0;           // 0: no limit

  // Neither parameter given: the view of the whole fleet, rendered once per scan.
  bool empty() const { return states.empty() && !has_limit; }
  // Whether `brain`'s state is one asked for.
  bool Matches(const BrainReport& brain) const;
};

// Reads `state` and `limit` from a query's decoded name=value pairs; other names are
// ignored. `state` is a comma-separated list of state names, exact; `limit` a decimal
// integer, 0 or more. False with a one-line `error` (for a 400) for an unknown state,
// a bad limit, or either parameter given twice; `*out` is then left untouched.
bool ParseBrainFilter(const std::vector<std::pair<std::string, std::string>>& params,
                      BrainFilter* out, std::string* error);

// The matching brains of `brains` in their order, at most `filter.limit` of them (all
// with no limit), and how many more matched.
struct BrainSelection {
  std::vector<const BrainReport*> brains;
  std::size_t omitted = 0;
};
BrainSelection SelectBrains(const std::vector<BrainReport>& brains, const BrainFilter& filter);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_BRAIN_FILTER_H_
