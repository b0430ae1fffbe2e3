// BrainReports built by hand for the tests of what reads them (the landing page, the
// scan log, the renderers): a brain in a given state, one whose
// identity is unknown, one with every optional fact, and a fleet with one mismatch.
#ifndef SCX_TESTS_BRAIN_REPORTS_H_
#define SCX_TESTS_BRAIN_REPORTS_H_

#include <cstddef>
#include <memory>
#include <string>

#include "engine/scanner.h"

namespace scx {
namespace testing {

// A brain named `name`, bound to /home/dev/<name>, in `state`, with no verdict.
inline BrainReport Report(const std::string& name, BrainState state) {
  BrainReport report;
  Brain* brain = report.mutable_brain();
  brain->name = name;
  brain->project_root = "/home/dev/" + name;
  brain->runtime_dir = "/rt/" + name;
  report.state = state;
  return report;
}

// A brain with a store whose identity cannot be decided: no verdict.
inline BrainReport IdentityUnknown(const std::string& name) {
  BrainReport report = Report(name, BrainState::kIdentityUnknown);
  Brain* brain = report.mutable_brain();
  brain->project_root.clear();
  brain->identity_source = IdentitySource::kUnknown;
  brain->identity_note = "ingest root /home/dev/m1nd cannot be seen";
  report.store = StorePresence::kPresent;
  return report;
}

// The length of EveryFact's strings: below the caps, and longer than the fixed bytes of
// any line.
inline constexpr std::size_t kLongString = 200;

// `prefix`, then 'x' up to kLongString bytes: nothing to escape.
inline std::string LongString(const std::string& prefix) {
  return prefix + std::string(kLongString - prefix.size(), 'x');
}

// Brain `index` in `state` with every optional fact a view can show: store facts, a
// stale mismatch with its reason and since when, whose skeleton (owner, more sharers
// than listed, prefix ambiguity with the more specific brain), a read error with its
// message and counts, an identity note, m1nd's and the display name. Every string is
// kLongString bytes; vocabulary values are the longest; numbers have a usual width.
// The views' tests render these: a new fact a view shows is set here too.
inline BrainReport EveryFact(int index, BrainState state) {
  const std::string tag = std::to_string(index) + "-";
  BrainReport report;
  Brain* brain = report.mutable_brain();
  brain->name = LongString("brain-" + tag);
  brain->project_root = LongString("/home/dev/" + tag);
  brain->display_name = LongString("display-" + tag);
  brain->runtime_dir = LongString("/home/dev/.m1nd/runtimes/" + tag);
  brain->source = BrainSource::kRegistryProject;
  brain->identity_source = IdentitySource::kSidecarWorkspace;
  brain->identity_note = LongString("note-" + tag);
  brain->m1nd_name = LongString("m1nd-" + tag);
  brain->carried_over = true;
  report.state = state;
  report.store = StorePresence::kUnreadable;
  report.read_error = StoreError::kNotRegular;
  report.read_error_message = LongString("message-" + tag);
  report.verdict_stale = true;
  report.has_store_facts = true;
  report.store_version = 4242;
  report.block_count = 123456;
  Coherence verdict;
  verdict.status = CoherenceStatus::kMismatch;
  verdict.expected_slug = LongString("expected-" + tag);
  verdict.found_slug = LongString("found-" + tag);
  verdict.reason = LongString("reason-" + tag);
  report.coherence = std::make_shared<const Coherence>(verdict);
  report.mismatch_since = 1796003827.979081;
  SkeletonProvenance provenance;
  provenance.owner_brain = LongString("owner-" + tag);
  for (std::size_t i = 0; i < kMaxSharedNames; ++i) {
    provenance.shared_with.push_back(LongString("shared-" + std::to_string(i) + "-" + tag));
  }
  provenance.shared_count = kMaxSharedNames + 5;
  provenance.prefix_ambiguous = true;
  provenance.ambiguous_slug = LongString("ambiguous-" + tag);
  provenance.ambiguous_with = LongString("with-" + tag);
  report.skeleton_provenance = std::make_shared<const SkeletonProvenance>(provenance);
  for (const Term<StoreError>& error : kStoreErrors) {
    if (IsReadError(error.value)) report.read_errors_total.Add(error.value, 12);
  }
  return report;
}

// A scan of `count` brains, one of them in mismatch: a text of several gzip pieces.
inline std::shared_ptr<const ScanResult> ScanOf(int count) {
  auto scan = std::make_shared<ScanResult>();
  for (int i = 0; i < count; ++i) {
    BrainReport report;
    Brain* brain = report.mutable_brain();
    brain->name = "brain" + std::to_string(100000 + i);
    brain->project_root = "/srv/repos/" + report.brain().name;
    brain->runtime_dir = "/srv/runtime/" + report.brain().name;
    report.store = StorePresence::kPresent;
    Coherence verdict;
    verdict.expected_slug = report.brain().name;
    verdict.found_slug = i == 7 ? "keyvault" : report.brain().name;
    verdict.status = i == 7 ? CoherenceStatus::kMismatch : CoherenceStatus::kOk;
    report.state = i == 7 ? BrainState::kMismatch : BrainState::kOk;
    report.coherence = std::make_shared<const Coherence>(verdict);
    scan->brains.push_back(report);
  }
  return scan;
}

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_BRAIN_REPORTS_H_
