// Mismatch, severity, worst-first order and reasons for the views people read.
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

namespace {

// "parse: unexpected end at byte 12"; empty when the last read did not fail.
std::string ReadErrorText(const BrainReport& brain) {
  if (brain.read_error == StoreError::kNone) return "";
  std::string text = StoreErrorName(brain.read_error);
  if (!brain.read_error_message.empty()) text += ": " + brain.read_error_message;
  return text;
}

}  // namespace

std::string ReasonOf(const BrainReport& brain) {
  std::string read_error = ReadErrorText(brain);
  if (InMismatch(brain)) {
    if (read_error.empty()) return brain.coherence->reason;
    return brain.coherence->reason +
           " (last good read; the store cannot be read now: " + read_error + ")";
  }
  if (brain.state == BrainState::kUnreadable) return read_error;
  if (brain.state == BrainState::kIdentityUnknown) return brain.brain().identity_note;
  if (brain.state == BrainState::kAbsent) return "no store yet";
  if (brain.provenance().prefix_ambiguous) {
    return "ok only by the prefix rule: the skeleton names " + brain.provenance().ambiguous_slug +
           (brain.provenance().ambiguity_allowed ? " (allowed in the config)" : "");
  }
  return "";
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
