// The label vocabularies (engine/vocabulary.h): every table lists every value of
// its enum once, in declaration order, with a distinct name; every value shows up in
// the rendered metrics, the per-brain ones or the exporter's own (or, for the store
// presence, in the JSON view); and docs/metrics.md lists the names in table order.
//
// The enumerators are listed below with switches that have no default: a value added
// to an enum fails to compile here (-Wswitch, an error with SCX_WERROR) until it is
// listed, and the tests then fail until the table, the renderer and the docs have it.
#include "engine/vocabulary.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "engine/discovery/discovery.h"
#include "engine/discovery/owner_identity.h"
#include "engine/discovery/visibility.h"
#include "engine/scanner.h"
#include "engine/store_reader.h"
#include "exporter/http/basic_auth.h"
#include "exporter/metrics/metrics_renderer.h"
#include "exporter/metrics/self_metrics.h"
#include "exporter/render/json_view.h"
#include "tests/captured_log.h"
#include "tests/test_support.h"

namespace scx {
namespace {

bool IsEnumerator(BrainState value) {
  switch (value) {
    case BrainState::kOk:
    case BrainState::kMismatch:
    case BrainState::kAbsent:
    case BrainState::kUnreadable:
    case BrainState::kIdentityUnknown:
      return true;
  }
  return false;
}

bool IsEnumerator(StorePresence value) {
  switch (value) {
    case StorePresence::kPresent:
    case StorePresence::kAbsent:
    case StorePresence::kUnreadable:
      return true;
  }
  return false;
}

bool IsEnumerator(StoreError value) {
  switch (value) {
    case StoreError::kNone:
    case StoreError::kAbsent:
    case StoreError::kIo:
    case StoreError::kTooLarge:
    case StoreError::kNotRegular:
    case StoreError::kParse:
    case StoreError::kSchema:
    case StoreError::kUnseen:
    case StoreError::kForeignLink:
      return true;
  }
  return false;
}

bool IsEnumerator(BrainSource value) {
  switch (value) {
    case BrainSource::kStatic:
    case BrainSource::kRegistryOwner:
    case BrainSource::kRegistryProject:
    case BrainSource::kGlob:
      return true;
  }
  return false;
}

bool IsEnumerator(DiscoveryProblemSource value) {
  switch (value) {
    case DiscoveryProblemSource::kRegistry:
    case DiscoveryProblemSource::kInstance:
    case DiscoveryProblemSource::kIngestRoots:
    case DiscoveryProblemSource::kManifest:
    case DiscoveryProblemSource::kGlob:
      return true;
  }
  return false;
}

bool IsEnumerator(RegistryConflictReason value) {
  switch (value) {
    case RegistryConflictReason::kForeignOwner:
    case RegistryConflictReason::kFutureHeartbeat:
      return true;
  }
  return false;
}

bool IsEnumerator(IdentitySource value) {
  switch (value) {
    case IdentitySource::kConfigDisplayName:
    case IdentitySource::kConfigProjectRoot:
    case IdentitySource::kManifest:
    case IdentitySource::kIngestRoot:
    case IdentitySource::kWorkspaceRoot:
    case IdentitySource::kAnyIngestRoot:
    case IdentitySource::kSidecarWorkspace:
    case IdentitySource::kUnknown:
      return true;
  }
  return false;
}

bool IsEnumerator(DiscoveryView value) {
  switch (value) {
    case DiscoveryView::kAuto:
    case DiscoveryView::kHost:
    case DiscoveryView::kSandbox:
      return true;
  }
  return false;
}

bool IsEnumerator(AuthFailure value) {
  switch (value) {
    case AuthFailure::kBadPassword:
    case AuthFailure::kUnknownUser:
    case AuthFailure::kBadHeader:
    case AuthFailure::kRateLimited:
      return true;
  }
  return false;
}

// Every value of the (dense, zero-based) enum, in declaration order.
template <typename Enum>
std::vector<Enum> AllValues() {
  std::vector<Enum> values;
  for (int i = 0; IsEnumerator(static_cast<Enum>(i)); ++i) values.push_back(static_cast<Enum>(i));
  return values;
}

template <typename Enum, std::size_t N>
void ExpectComplete(const Term<Enum> (&terms)[N]) {
  const std::vector<Enum> values = AllValues<Enum>();
  ASSERT_EQ(values.size(), N) << "the table and the enum differ in size";
  std::set<std::string> names;
  for (std::size_t i = 0; i < N; ++i) {
    EXPECT_EQ(terms[i].value, values[i]) << "row " << i << " (" << terms[i].name << ")";
    const std::string name = terms[i].name;
    EXPECT_FALSE(name.empty());
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    EXPECT_TRUE(names.insert(name).second) << "duplicate name " << name;
    EXPECT_EQ(NameOf(terms, values[i]), name);
  }
}

TEST(VocabularyTest, EveryTableListsEveryValueOnceInOrder) {
  ExpectComplete(kBrainStates);
  ExpectComplete(kStorePresences);
  ExpectComplete(kStoreErrors);
  ExpectComplete(kBrainSources);
  ExpectComplete(kDiscoveryProblemSources);
  ExpectComplete(kRegistryConflictReasons);
  ExpectComplete(kIdentitySources);
  ExpectComplete(kDiscoveryViews);
  ExpectComplete(kAuthFailures);
}

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One brain per brain source and per identity source, in every state and store
// presence, and every discovery problem source counted once.
ScanResult EveryValueScan() {
  ScanResult scan;
  int n = 0;
  auto add = [&](BrainSource source, IdentitySource identity) {
    BrainReport report;
    Brain* brain = report.mutable_brain();
    brain->name = "b" + std::to_string(n);
    brain->runtime_dir = "/rt/" + report.brain().name;
    brain->source = source;
    brain->identity_source = identity;
    report.state = AllValues<BrainState>()[n % AllValues<BrainState>().size()];
    report.store = AllValues<StorePresence>()[n % AllValues<StorePresence>().size()];
    scan.brains.push_back(report);
    ++n;
  };
  for (BrainSource source : AllValues<BrainSource>()) add(source, IdentitySource::kManifest);
  for (IdentitySource identity : AllValues<IdentitySource>()) add(BrainSource::kGlob, identity);
  return scan;
}

// The exporter's own families after a scan of EveryValueScan().
std::string OwnMetricsText() {
  testing::CapturedLog log(LogLevel::kWarn);
  SelfMetrics metrics(
      {{"0.1.0", "abc123", "main", "u@h", "20261130-00:00:00", "gcc 12.2.0", "linux/amd64"},
       true,
       /*process=*/false},
      log.logger());
  metrics.RecordScan(EveryValueScan(), 0.1, 1767225600);
  return metrics.Text();
}

TEST(VocabularyTest, EveryValueAppearsInTheRenderedMetrics) {
  BrainMetricsOptions store_details;
  store_details.store_details = true;
  const std::string text = RenderMetrics(EveryValueScan(), nullptr, store_details);
  const std::string own = OwnMetricsText();
  for (const Term<BrainState>& state : kBrainStates) {
    const std::string label = "state=\"" + std::string(state.name) + "\"";
    EXPECT_TRUE(Contains(text, "skeleton_coherence_brain_state{brain=\"b0\"," + label + "}"))
        << state.name;
    EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_brains{" + label + "}")) << state.name;
  }
  for (const Term<StoreError>& error : kStoreErrors) {
    const std::string series = "skeleton_coherence_store_read_errors_total{brain=\"b0\",reason=\"" +
                               std::string(error.name) + "\"}";
    EXPECT_EQ(Contains(text, series), IsReadError(error.value)) << error.name;
    EXPECT_EQ(Contains(own, "skeleton_coherence_exporter_store_read_errors_total{reason=\"" +
                                std::string(error.name) + "\"} 0\n"),
              IsReadError(error.value))
        << error.name;
  }
  for (const Term<DiscoveryProblemSource>& source : kDiscoveryProblemSources) {
    EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_discovery_errors_total{source=\"" +
                                  std::string(source.name) + "\"}"))
        << source.name;
  }
  // Every reason is there from the start, at 0.
  for (const Term<RegistryConflictReason>& reason : kRegistryConflictReasons) {
    EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_registry_conflicts{reason=\"" +
                                  std::string(reason.name) + "\"} 0\n"))
        << reason.name;
  }
  for (const Term<AuthFailure>& reason : kAuthFailures) {
    EXPECT_TRUE(Contains(own, "skeleton_coherence_exporter_http_auth_failures_total{reason=\"" +
                                  std::string(reason.name) + "\"} 0\n"))
        << reason.name;
  }
  for (const Term<BrainSource>& source : kBrainSources) {
    EXPECT_TRUE(Contains(text, ",source=\"" + std::string(source.name) + "\",")) << source.name;
  }
  for (const Term<IdentitySource>& identity : kIdentitySources) {
    EXPECT_TRUE(Contains(text, "identity_source=\"" + std::string(identity.name) + "\","))
        << identity.name;
  }
}

TEST(VocabularyTest, EveryStorePresenceAppearsInTheJsonView) {
  const std::string json = OnceReport(EveryValueScan().brains);
  for (const Term<StorePresence>& presence : kStorePresences) {
    EXPECT_TRUE(Contains(json, "\"store\": \"" + std::string(presence.name) + "\""))
        << presence.name;
  }
  for (const Term<BrainState>& state : kBrainStates) {
    EXPECT_TRUE(Contains(json, "\"state\": \"" + std::string(state.name) + "\"")) << state.name;
  }
}

// docs/metrics.md names every value, in table order, after `anchor`.
template <typename Enum, std::size_t N>
void ExpectDocumentedInOrder(const std::string& docs, const std::string& anchor,
                             const Term<Enum> (&terms)[N], bool (*wanted)(Enum) = nullptr) {
  std::size_t at = docs.find(anchor);
  ASSERT_NE(at, std::string::npos) << anchor;
  for (const Term<Enum>& term : terms) {
    if (wanted != nullptr && !wanted(term.value)) continue;
    at = docs.find("`" + std::string(term.name) + "`", at);
    EXPECT_NE(at, std::string::npos) << anchor << ": `" << term.name << "` missing or out of order";
    if (at == std::string::npos) return;
  }
}

bool IsReadErrorReason(StoreError error) { return IsReadError(error); }

TEST(VocabularyTest, MetricsDocListsEveryValueInTableOrder) {
  const std::string docs = testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/docs/metrics.md");
  ASSERT_FALSE(docs.empty());
  ExpectDocumentedInOrder(docs, "- `state` —", kBrainStates);
  ExpectDocumentedInOrder(docs, "- `reason` —", kStoreErrors, &IsReadErrorReason);
  ExpectDocumentedInOrder(docs, "`source` is", kBrainSources);
  ExpectDocumentedInOrder(docs, "`identity_source` the rule", kIdentitySources);
  ExpectDocumentedInOrder(docs, "Discovery problems by source:", kDiscoveryProblemSources);
  ExpectDocumentedInOrder(docs, "Registry records the last scan refused or demoted, by `reason`:",
                          kRegistryConflictReasons);
  ExpectDocumentedInOrder(docs, "Requests basic auth did not allow, by `reason`:", kAuthFailures);
}

// docs/api.md and the README's --once section name every state too.
TEST(VocabularyTest, JsonDocsListEveryStateInTableOrder) {
  const std::string api = testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/docs/api.md");
  ASSERT_FALSE(api.empty());
  ExpectDocumentedInOrder(api, "| `state` |", kBrainStates);
  ExpectDocumentedInOrder(api, "which rule named it", kIdentitySources);
  const std::string readme = testing::ReadFile(std::string(SCX_SOURCE_DIR) + "/README.md");
  ExpectDocumentedInOrder(readme, "`state` is one of", kBrainStates);
}

}  // namespace
}  // namespace scx
