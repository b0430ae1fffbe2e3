// Renders the per-brain metrics of docs/metrics.md from a scan, and the process
// collector's from the process's figures, writing the text format straight into one
// string.
#include "exporter/metrics/metrics_renderer.h"

#include <algorithm>
#include <deque>
#include <numeric>
#include <string_view>

#include "exporter/metrics/prometheus_text.h"

namespace scx {

namespace {

double Bool(bool value) { return value ? 1 : 0; }

// For each brain, whether another brain has the same `brain` label value (after
// sanitizing). Brains are unique by name, so normally none: only the samples of such
// brains can collide, and only they are checked.
std::vector<bool> BrainsSharingALabel(const std::vector<BrainReport>& brains) {
  std::deque<std::string> sanitized;  // the few names that need it (stable addresses)
  std::vector<std::string_view> keys;
  keys.reserve(brains.size());
  for (const BrainReport& report : brains) {
    const std::string& name = report.brain().name;
    if (IsExportedAsIs(name)) {
      keys.push_back(name);
    } else {
      keys.push_back(sanitized.emplace_back(SanitizedLabelValue(name)));
    }
  }
  std::vector<bool> shared(brains.size(), false);
  // A scan lists brains by name; any other order is sorted through an index.
  std::vector<std::size_t> order;
  if (!std::is_sorted(keys.begin(), keys.end())) {
    order.resize(keys.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](std::size_t a, std::size_t b) { return keys[a] < keys[b]; });
  }
  const auto index = [&](std::size_t i) { return order.empty() ? i : order[i]; };
  for (std::size_t i = 1; i < keys.size(); ++i) {
    if (keys[index(i)] == keys[index(i - 1)]) shared[index(i)] = shared[index(i - 1)] = true;
  }
  return shared;
}

// Writes families in order into one string.
class Renderer {
 public:
  // `out` collects the text; when `sink` is set, `out` is handed to it and emptied
  // whenever it holds `piece_bytes`, and once more by Finish.
  Renderer(const ScanResult& scan, ExpositionFormat format, std::vector<std::string>* dropped,
           std::string* out, std::size_t piece_bytes = 0,
           const std::function<void(std::string_view)>* sink = nullptr)
      : scan_(scan),
        format_(format),
        dropped_(dropped),
        out_(out),
        piece_bytes_(piece_bytes),
        sink_(sink),
        shared_(BrainsSharingALabel(scan.brains)) {}

  // One family over every brain: `add(report, &family)` adds that brain's samples.
  template <typename AddSamples>
  void BrainFamily(const MetricFamilySpec& family, AddSamples add) {
    FamilyWriter writer(family, out_, dropped_, format_);
    for (std::size_t i = 0; i < scan_.brains.size(); ++i) {
      writer.CheckDuplicates(shared_[i]);
      add(scan_.brains[i], &writer);
      if (sink_ != nullptr && out_->size() >= piece_bytes_) HandOver();
    }
  }

  // Hands what is left to the sink.
  void Finish() {
    if (sink_ != nullptr && !out_->empty()) HandOver();
  }

  // A family whose samples come from a fixed vocabulary: nothing to check.
  FamilyWriter Fixed(const MetricFamilySpec& family) {
    if (sink_ != nullptr && out_->size() >= piece_bytes_) HandOver();
    return FamilyWriter(family, out_, dropped_, format_);
  }

  // A family with a single sample and no labels.
  void Single(const MetricFamilySpec& family, double value) { Fixed(family).Add({}, value); }

 private:
  void HandOver() {
    (*sink_)(*out_);
    out_->clear();
  }

  const ScanResult& scan_;
  const ExpositionFormat format_;
  std::vector<std::string>* dropped_;
  std::string* out_;
  const std::size_t piece_bytes_;
  const std::function<void(std::string_view)>* sink_;
  std::vector<bool> shared_;
};

constexpr MetricType kGauge = MetricType::kGauge;
constexpr MetricType kCounter = MetricType::kCounter;

void WriteVerdictFamilies(Renderer* renderer) {
  static constexpr MetricFamilySpec kCoherence{
      "skeleton_coherence",
      "1 when the brain serves its own skeleton, 0 when it serves a "
      "foreign one. No series without a verdict.",
      kGauge};
  static constexpr MetricFamilySpec kStale{
      "skeleton_coherence_stale",
      "1 while the exported verdict is from an earlier read because the "
      "store cannot be read now. No series otherwise.",
      kGauge};
  static constexpr MetricFamilySpec kSince{
      "skeleton_coherence_mismatch_since_seconds",
      "While the brain serves a foreign skeleton (stale verdicts "
      "included): the store file's mtime, in Unix seconds, at the first "
      "read this process saw of this foreign verdict. The brain has "
      "served it at least since then.",
      kGauge};
  renderer->BrainFamily(kCoherence, [](const BrainReport& report, FamilyWriter* family) {
    if (!report.coherence) return;
    const Coherence& verdict = *report.coherence;
    family->Add({{"brain", report.brain().name},
                 {"expected_slug", verdict.expected_slug},
                 {"found_slug", verdict.found_slug}},
                Bool(verdict.status == CoherenceStatus::kOk));
  });
  renderer->BrainFamily(kStale, [](const BrainReport& report, FamilyWriter* family) {
    if (report.coherence && report.verdict_stale) family->Add({{"brain", report.brain().name}}, 1);
  });
  renderer->BrainFamily(kSince, [](const BrainReport& report, FamilyWriter* family) {
    if (report.mismatch_since)
      family->Add({{"brain", report.brain().name}}, *report.mismatch_since);
  });
}

// Whose skeleton: signals beside the verdict (engine/skeleton_provenance.h).
void WriteProvenanceFamilies(Renderer* renderer) {
  static constexpr MetricFamilySpec kOwner{
      "skeleton_coherence_foreign_owner",
      "On mismatch: the other known brain whose slug the served skeleton "
      "carries. Always 1.",
      kGauge};
  static constexpr MetricFamilySpec kShared{
      "skeleton_coherence_shared_skeleton_brains",
      "Brains (this one included) serving this brain's skeleton id at "
      "once, when more than one.",
      kGauge};
  static constexpr MetricFamilySpec kAmbiguous{
      "skeleton_coherence_prefix_ambiguous",
      "1 when the skeleton is accepted only through the prefix rule: "
      "it names a longer slug than the brain's own.",
      kGauge};
  renderer->BrainFamily(kOwner, [](const BrainReport& report, FamilyWriter* family) {
    const SkeletonProvenance& provenance = report.provenance();
    if (provenance.owner_brain.empty()) return;
    family->Add({{"brain", report.brain().name}, {"owner_brain", provenance.owner_brain}}, 1);
  });
  renderer->BrainFamily(kShared, [](const BrainReport& report, FamilyWriter* family) {
    const SkeletonProvenance& provenance = report.provenance();
    if (provenance.shared_count == 0) return;
    family->Add({{"brain", report.brain().name}}, static_cast<double>(provenance.shared_count + 1));
  });
  renderer->BrainFamily(kAmbiguous, [](const BrainReport& report, FamilyWriter* family) {
    const SkeletonProvenance& provenance = report.provenance();
    if (!provenance.prefix_ambiguous || provenance.ambiguity_allowed) return;
    family->Add({{"brain", report.brain().name}, {"ambiguous_slug", provenance.ambiguous_slug}}, 1);
  });
}

void WriteBrainFamilies(const BrainMetricsOptions& options, Renderer* renderer) {
  static constexpr MetricFamilySpec kState{
      "skeleton_coherence_brain_state",
      "The brain's state in the last scan: 1 for the current state, 0 "
      "for the others.",
      kGauge};
  static constexpr MetricFamilySpec kInfo{
      "skeleton_coherence_brain_info", "Where the brain was found. Always 1.", MetricType::kInfo};
  static constexpr MetricFamilySpec kVersion{
      "skeleton_coherence_store_version",
      "store_version of the last good read of the brain's store.", kGauge};
  static constexpr MetricFamilySpec kBlocks{
      "skeleton_coherence_store_blocks",
      "Number of blocks in the last good read of the brain's store.", kGauge};
  static constexpr MetricFamilySpec kReadErrors{
      "skeleton_coherence_store_read_errors_total",
      "Scans in which the brain's store could not be read, by "
      "reason, since the exporter first saw the brain.",
      kCounter};
  renderer->BrainFamily(kState, [](const BrainReport& report, FamilyWriter* family) {
    for (const Term<BrainState>& candidate : kBrainStates) {
      family->Add({{"brain", report.brain().name}, {"state", candidate.name}},
                  Bool(report.state == candidate.value));
    }
  });
  renderer->BrainFamily(kInfo, [](const BrainReport& report, FamilyWriter* family) {
    family->Add({{"brain", report.brain().name},
                 {"project_root", report.brain().project_root},
                 {"runtime_dir", report.brain().runtime_dir},
                 {"source", BrainSourceName(report.brain().source)},
                 {"identity_source", IdentitySourceName(report.brain().identity_source)},
                 {"m1nd_name", report.brain().m1nd_name}},
                1);
  });
  if (options.store_details) {
    renderer->BrainFamily(kVersion, [](const BrainReport& report, FamilyWriter* family) {
      if (!report.has_store_facts) return;
      family->AddInteger({{"brain", report.brain().name}}, report.store_version);
    });
  }
  renderer->BrainFamily(kBlocks, [](const BrainReport& report, FamilyWriter* family) {
    if (!report.has_store_facts) return;
    family->Add({{"brain", report.brain().name}}, static_cast<double>(report.block_count));
  });
  if (!options.store_details) return;
  // Every reason is exported from zero so that the first error shows as an increase.
  renderer->BrainFamily(kReadErrors, [](const BrainReport& report, FamilyWriter* family) {
    for (const Term<StoreError>& reason : kStoreErrors) {
      if (!IsReadError(reason.value)) continue;
      family->Add({{"brain", report.brain().name}, {"reason", reason.name}},
                  static_cast<double>(report.read_errors_total[reason.value]));
    }
  });
}

// The process collector of the Prometheus client libraries: same names, types and help.
void WriteProcessFamilies(const ProcessStats& process, Renderer* renderer) {
  renderer->Single(
      {"process_cpu_seconds_total", "Total user and system CPU time spent in seconds.", kCounter},
      process.cpu_seconds_total);
  renderer->Single({"process_open_fds", "Number of open file descriptors.", kGauge},
                   process.open_fds);
  renderer->Single({"process_max_fds", "Maximum number of open file descriptors.", kGauge},
                   process.max_fds);
  renderer->Single({"process_virtual_memory_bytes", "Virtual memory size in bytes.", kGauge},
                   process.virtual_memory_bytes);
  renderer->Single({"process_virtual_memory_max_bytes",
                    "Maximum amount of virtual memory available in bytes.", kGauge},
                   process.virtual_memory_max_bytes);
  renderer->Single({"process_resident_memory_bytes", "Resident memory size in bytes.", kGauge},
                   process.resident_memory_bytes);
  renderer->Single({"process_start_time_seconds",
                    "Start time of the process since unix epoch in seconds.", kGauge},
                   process.start_time_seconds);
}

void WriteAllFamilies(const BrainMetricsOptions& options, Renderer* renderer) {
  WriteVerdictFamilies(renderer);
  WriteProvenanceFamilies(renderer);
  WriteBrainFamilies(options, renderer);
  renderer->Finish();
}

}  // namespace

std::string RenderMetrics(const ScanResult& scan, std::vector<std::string>* dropped,
                          const BrainMetricsOptions& options, ExpositionFormat format,
                          std::size_t reserve) {
  std::string text;
  text.reserve(reserve);
  Renderer renderer(scan, format, dropped, &text);
  WriteAllFamilies(options, &renderer);
  return text;
}

void RenderMetricsTo(const ScanResult& scan, const BrainMetricsOptions& options,
                     ExpositionFormat format, std::vector<std::string>* dropped,
                     std::size_t piece_bytes,
                     const std::function<void(std::string_view piece)>& sink) {
  std::string piece;
  piece.reserve(piece_bytes + piece_bytes / 4);
  Renderer renderer(scan, format, dropped, &piece, piece_bytes, &sink);
  WriteAllFamilies(options, &renderer);
}

std::string RenderProcessMetrics(const ProcessStats& process, ExpositionFormat format) {
  static const ScanResult kNoScan;
  std::string text;
  Renderer renderer(kNoScan, format, nullptr, &text);
  WriteProcessFamilies(process, &renderer);
  return text;
}

}  // namespace scx
