// BrainReports built by hand for the tests of what reads them (the landing page, the
// scan log): a brain in a given state, and one whose identity is unknown.
#ifndef SCX_TESTS_BRAIN_REPORTS_H_
#define SCX_TESTS_BRAIN_REPORTS_H_

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

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_BRAIN_REPORTS_H_
