// Mismatch, severity and worst-first order for the views people read.
#include "exporter/render/display_rules.h"

#include <algorithm>

namespace scx {

bool InMismatch(const BrainReport& brain) {
  return brain.coherence && brain.coherence->status == CoherenceStatus::kMismatch;
}

int StateSeverity(BrainState state) {
  switch (state) {
    case BrainState::kMismatch:
      return 0;
    case BrainState::kUnreadable:
      return 1;
    case BrainState::kIdentityUnknown:
      return 2;
    case BrainState::kAbsent:
      return 3;
    case BrainState::kOk:
      return 4;
  }
  return 4;
}

int Severity(const BrainReport& brain) {
  return InMismatch(brain) ? StateSeverity(BrainState::kMismatch) : StateSeverity(brain.state);
}

std::vector<const BrainReport*> WorstFirst(const std::vector<BrainReport>& brains) {
  std::vector<const BrainReport*> ordered;
  ordered.reserve(brains.size());
  for (const BrainReport& report : brains) ordered.push_back(&report);
  std::stable_sort(ordered.begin(), ordered.end(), [](const BrainReport* a, const BrainReport* b) {
    const int x = Severity(*a);
    const int y = Severity(*b);
    return x != y ? x < y : a->brain().name < b->brain().name;
  });
  return ordered;
}

}  // namespace scx
