// Parsing a state filter and a limit, and applying them.
#include "exporter/render/brain_filter.h"

#include <algorithm>
#include <cstdint>
#include <string_view>

#include "base/strings.h"

namespace scx {

namespace {

bool ParseStates(std::string_view text, std::vector<BrainState>* states, std::string* error) {
  while (true) {
    const std::size_t comma = text.find(',');
    const std::string_view name = text.substr(0, comma);
    BrainState state;
    if (!ValueOf(kBrainStates, name, &state)) {
      *error = "unknown state \"" + std::string(name) + "\": want " + NamesOf(kBrainStates) +
               " (several separated by commas)";
      return false;
    }
    if (std::find(states->begin(), states->end(), state) == states->end()) {
      states->push_back(state);
    }
    if (comma == std::string_view::npos) return true;
    text.remove_prefix(comma + 1);
  }
}

bool ParseLimit(std::string_view text, std::size_t* limit, std::string* error) {
  std::uint64_t value = 0;
  if (!ParseWholeNumber(text, &value) || value > SIZE_MAX) {
    *error = "bad limit \"" + std::string(text) + "\": want an integer, 0 or more (0: no limit)";
    return false;
  }
  *limit = static_cast<std::size_t>(value);
  return true;
}

}  // namespace

bool BrainFilter::Matches(const BrainReport& brain) const {
  return states.empty() || std::find(states.begin(), states.end(), brain.state) != states.end();
}

bool ParseBrainFilter(const std::vector<std::pair<std::string, std::string>>& params,
                      BrainFilter* out, std::string* error) {
  BrainFilter filter;
  bool has_state = false;
  for (const auto& [name, value] : params) {
    if (name != "state" && name != "limit") continue;
    const bool state = name == "state";
    if (state ? has_state : filter.has_limit) {
      *error = name + " given twice";
      return false;
    }
    if (state) {
      has_state = true;
      if (!ParseStates(value, &filter.states, error)) return false;
    } else {
      filter.has_limit = true;
      if (!ParseLimit(value, &filter.limit, error)) return false;
    }
  }
  *out = std::move(filter);
  return true;
}

BrainSelection SelectBrains(const std::vector<BrainReport>& brains, const BrainFilter& filter) {
  BrainSelection selection;
  for (const BrainReport& brain : brains) {
    if (!filter.Matches(brain)) continue;
    if (filter.limit == 0 || selection.brains.size() < filter.limit) {
      selection.brains.push_back(&brain);
    } else {
      ++selection.omitted;
    }
  }
  return selection;
}

}  // namespace scx
