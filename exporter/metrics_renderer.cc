// Renders the metrics of docs/metrics.md from a scan and the exporter's statistics.
#include "exporter/metrics_renderer.h"

#include <set>
#include <sstream>
#include <utility>

#include <prometheus/text_serializer.h>

#include "engine/utf8.h"

namespace scx {

namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

// `counts[key]`, 0 when absent: every value of a vocabulary is exported from zero so
// that its first occurrence shows as an increase.
template <typename Enum>
std::uint64_t CountOf(const std::map<Enum, std::uint64_t>& counts, Enum key) {
  const auto it = counts.find(key);
  return it == counts.end() ? 0 : it->second;
}

// Collects the samples of one family and refuses a label set it already holds.
class FamilyBuilder {
 public:
  FamilyBuilder(const char* name, const char* help, MetricType type,
                std::vector<std::string>* dropped)
      : dropped_(dropped) {
    family_.name = name;
    family_.help = help;
    family_.type = type;
  }

  void Add(Labels labels, double value) {
    for (auto& label : labels) label.value = CapText(ToValidUtf8(label.value), kMaxLabelValueBytes);
    if (!seen_.insert(labels).second) {
      if (dropped_ != nullptr) dropped_->push_back(Describe(labels));
      return;
    }
    ClientMetric metric;
    metric.label = std::move(labels);
    if (family_.type == MetricType::Counter) {
      metric.counter.value = value;
    } else {
      metric.gauge.value = value;
    }
    family_.metric.push_back(std::move(metric));
  }

  MetricFamily Take() { return std::move(family_); }

 private:
  std::string Describe(const Labels& labels) const {
    std::string text = family_.name + "{";
    for (size_t i = 0; i < labels.size(); ++i) {
      text += (i ? "," : "") + labels[i].name + "=\"" + labels[i].value + "\"";
    }
    return text + "}";
  }

  MetricFamily family_;
  std::set<Labels> seen_;
  std::vector<std::string>* dropped_;
};

double Bool(bool value) { return value ? 1 : 0; }

void AddVerdictFamilies(const ScanResult& scan, std::vector<std::string>* dropped,
                        std::vector<MetricFamily>* out) {
  FamilyBuilder coherence("skeleton_coherence",
                          "1 when the brain serves its own skeleton, 0 when it serves a "
                          "foreign one. No series without a verdict.",
                          MetricType::Gauge, dropped);
  FamilyBuilder stale("skeleton_coherence_stale",
                      "1 when the exported verdict is from an earlier read because the store "
                      "cannot be read now.",
                      MetricType::Gauge, dropped);
  FamilyBuilder since("skeleton_coherence_mismatch_since_seconds",
                      "While the brain serves a foreign skeleton (stale verdicts included): the "
                      "store file's mtime, in Unix seconds, at the first read this process saw "
                      "of this foreign verdict. The brain has served it at least since then.",
                      MetricType::Gauge, dropped);
  for (const BrainReport& report : scan.brains) {
    if (report.mismatch_since) since.Add({{"brain", report.brain.name}}, *report.mismatch_since);
    if (!report.coherence) continue;
    const Coherence& verdict = *report.coherence;
    coherence.Add({{"brain", report.brain.name},
                   {"expected_slug", verdict.expected_slug},
                   {"found_slug", verdict.found_slug}},
                  Bool(verdict.status == CoherenceStatus::kOk));
    stale.Add({{"brain", report.brain.name}}, Bool(report.verdict_stale));
  }
  out->push_back(coherence.Take());
  out->push_back(stale.Take());
  out->push_back(since.Take());
}

// Whose skeleton: signals beside the verdict (engine/skeleton_provenance.h).
void AddProvenanceFamilies(const ScanResult& scan, std::vector<std::string>* dropped,
                           std::vector<MetricFamily>* out) {
  FamilyBuilder owner("skeleton_coherence_foreign_owner",
                      "On mismatch: the other known brain whose slug the served skeleton "
                      "carries. Always 1.",
                      MetricType::Gauge, dropped);
  FamilyBuilder shared("skeleton_coherence_shared_skeleton_brains",
                       "Brains (this one included) serving this brain's skeleton id at once, "
                       "when more than one.",
                       MetricType::Gauge, dropped);
  FamilyBuilder ambiguous("skeleton_coherence_prefix_ambiguous",
                          "1 when the skeleton is accepted only through the prefix rule: it "
                          "names a longer slug than the brain's own.",
                          MetricType::Gauge, dropped);
  for (const BrainReport& report : scan.brains) {
    const SkeletonProvenance& provenance = report.provenance;
    const std::string& name = report.brain.name;
    if (!provenance.owner_brain.empty()) {
      owner.Add({{"brain", name}, {"owner_brain", provenance.owner_brain}}, 1);
    }
    if (provenance.shared_count > 0) {
      shared.Add({{"brain", name}}, static_cast<double>(provenance.shared_count + 1));
    }
    if (provenance.prefix_ambiguous) {
      ambiguous.Add({{"brain", name}, {"ambiguous_slug", provenance.ambiguous_slug}}, 1);
    }
  }
  out->push_back(owner.Take());
  out->push_back(shared.Take());
  out->push_back(ambiguous.Take());
}

void AddBrainFamilies(const ScanResult& scan, std::vector<std::string>* dropped,
                      std::vector<MetricFamily>* out) {
  FamilyBuilder state("skeleton_coherence_brain_state",
                      "The brain's state in the last scan: 1 for the current state, 0 for the "
                      "others.",
                      MetricType::Gauge, dropped);
  FamilyBuilder info("skeleton_coherence_brain_info", "Where the brain was found. Always 1.",
                     MetricType::Gauge, dropped);
  FamilyBuilder version("skeleton_coherence_store_version",
                        "store_version of the last good read of the brain's store.",
                        MetricType::Gauge, dropped);
  FamilyBuilder blocks("skeleton_coherence_store_blocks",
                       "Number of blocks in the last good read of the brain's store.",
                       MetricType::Gauge, dropped);
  FamilyBuilder read_errors("skeleton_coherence_store_read_errors_total",
                            "Scans in which the brain's store could not be read, by reason, "
                            "since the exporter first saw the brain.",
                            MetricType::Counter, dropped);
  for (const BrainReport& report : scan.brains) {
    const std::string& name = report.brain.name;
    for (const Term<BrainState>& candidate : kBrainStates) {
      state.Add({{"brain", name}, {"state", candidate.name}},
                Bool(report.state == candidate.value));
    }
    info.Add({{"brain", name},
              {"project_root", report.brain.project_root},
              {"runtime_dir", report.brain.runtime_dir},
              {"source", BrainSourceName(report.brain.source)},
              {"identity_source", IdentitySourceName(report.brain.identity_source)}},
             1);
    if (report.has_store_facts) {
      version.Add({{"brain", name}}, static_cast<double>(report.store_version));
      blocks.Add({{"brain", name}}, static_cast<double>(report.block_count));
    }
    // Every reason is exported from zero so that the first error shows as an increase.
    for (const Term<StoreError>& reason : kStoreErrors) {
      if (!IsReadError(reason.value)) continue;
      read_errors.Add({{"brain", name}, {"reason", reason.name}},
                      static_cast<double>(CountOf(report.read_errors_total, reason.value)));
    }
  }
  out->push_back(state.Take());
  out->push_back(info.Take());
  out->push_back(version.Take());
  out->push_back(blocks.Take());
  out->push_back(read_errors.Take());
}

// A family with a single sample and no labels.
MetricFamily Single(const char* name, const char* help, MetricType type, double value) {
  FamilyBuilder builder(name, help, type, nullptr);
  builder.Add({}, value);
  return builder.Take();
}

void AddExporterFamilies(const ScanResult& scan, const ExporterStats& stats,
                         std::vector<std::string>* dropped, std::vector<MetricFamily>* out) {
  FamilyBuilder build_info("skeleton_coherence_exporter_build_info",
                           "Version and revision of the exporter. Always 1.", MetricType::Gauge,
                           dropped);
  build_info.Add({{"version", stats.version}, {"revision", stats.revision}}, 1);
  out->push_back(build_info.Take());

  out->push_back(Single("skeleton_coherence_exporter_scan_duration_seconds",
                        "Wall time of the last completed scan.", MetricType::Gauge,
                        stats.last_scan_duration_seconds));
  out->push_back(Single("skeleton_coherence_exporter_last_scan_timestamp_seconds",
                        "Unix time at which the last scan completed.", MetricType::Gauge,
                        stats.last_scan_timestamp_seconds));
  out->push_back(Single("skeleton_coherence_exporter_last_scan_success",
                        "1 when the last scan could read every discovery source, else 0.",
                        MetricType::Gauge, Bool(stats.last_scan_success)));
  out->push_back(Single("skeleton_coherence_exporter_scan_interval_seconds",
                        "The configured scan interval.", MetricType::Gauge,
                        stats.scan_interval_seconds));
  out->push_back(Single("skeleton_coherence_exporter_scans_total", "Completed scans.",
                        MetricType::Counter, static_cast<double>(stats.scans_total)));

  FamilyBuilder discovery_errors("skeleton_coherence_exporter_discovery_errors_total",
                                 "Discovery problems by source.", MetricType::Counter, dropped);
  for (const Term<DiscoveryProblemSource>& source : kDiscoveryProblemSources) {
    discovery_errors.Add({{"source", source.name}},
                         static_cast<double>(CountOf(stats.discovery_errors_total, source.value)));
  }
  out->push_back(discovery_errors.Take());

  FamilyBuilder brains("skeleton_coherence_exporter_brains", "Brains by state in the last scan.",
                       MetricType::Gauge, dropped);
  for (const Term<BrainState>& candidate : kBrainStates) {
    std::int64_t count = 0;
    for (const BrainReport& report : scan.brains) count += report.state == candidate.value ? 1 : 0;
    brains.Add({{"state", candidate.name}}, static_cast<double>(count));
  }
  out->push_back(brains.Take());

  out->push_back(Single("skeleton_coherence_exporter_stores_parsed_total",
                        "Stores read and parsed because their file stamp changed.",
                        MetricType::Counter, static_cast<double>(stats.stores_parsed_total)));
  out->push_back(Single("skeleton_coherence_exporter_stores_unchanged_total",
                        "Store reads skipped because device, inode, size and mtime were "
                        "unchanged.",
                        MetricType::Counter, static_cast<double>(stats.stores_unchanged_total)));
  out->push_back(Single("skeleton_coherence_exporter_config_last_reload_successful",
                        "1 when the last config load (start or reload) succeeded.",
                        MetricType::Gauge, Bool(stats.config_last_reload_successful)));

  FamilyBuilder reloads("skeleton_coherence_exporter_config_reloads_total",
                        "Config reloads (SIGHUP or POST /-/reload) by result.", MetricType::Counter,
                        dropped);
  reloads.Add({{"result", "success"}}, static_cast<double>(stats.config_reloads_success_total));
  reloads.Add({{"result", "failure"}}, static_cast<double>(stats.config_reloads_failure_total));
  out->push_back(reloads.Take());

  out->push_back(Single("skeleton_coherence_exporter_watched_dirs",
                        "Folders watched with inotify after the last scan (0: timer only).",
                        MetricType::Gauge, static_cast<double>(stats.watched_dirs)));
  out->push_back(Single("skeleton_coherence_exporter_watch_limited",
                        "1 when a watch limit left some folders to the timer scan alone.",
                        MetricType::Gauge, Bool(stats.watch_limited)));
  out->push_back(Single("skeleton_coherence_exporter_watch_triggered_scans_total",
                        "Scans started at once by a change seen with inotify.", MetricType::Counter,
                        static_cast<double>(stats.watch_triggered_scans_total)));
}

// The process collector of the Prometheus client libraries: same names, types and help.
void AddProcessFamilies(const ProcessStats& process, std::vector<MetricFamily>* out) {
  out->push_back(Single("process_cpu_seconds_total",
                        "Total user and system CPU time spent in seconds.", MetricType::Counter,
                        process.cpu_seconds_total));
  out->push_back(Single("process_open_fds", "Number of open file descriptors.", MetricType::Gauge,
                        process.open_fds));
  out->push_back(Single("process_max_fds", "Maximum number of open file descriptors.",
                        MetricType::Gauge, process.max_fds));
  out->push_back(Single("process_virtual_memory_bytes", "Virtual memory size in bytes.",
                        MetricType::Gauge, process.virtual_memory_bytes));
  out->push_back(Single("process_resident_memory_bytes", "Resident memory size in bytes.",
                        MetricType::Gauge, process.resident_memory_bytes));
  out->push_back(Single("process_start_time_seconds",
                        "Start time of the process since unix epoch in seconds.", MetricType::Gauge,
                        process.start_time_seconds));
}

}  // namespace

std::vector<MetricFamily> BuildMetricFamilies(const ScanResult& scan, const ExporterStats& stats,
                                              std::vector<std::string>* dropped) {
  std::vector<MetricFamily> families;
  AddVerdictFamilies(scan, dropped, &families);
  AddProvenanceFamilies(scan, dropped, &families);
  AddBrainFamilies(scan, dropped, &families);
  if (stats.exporter_metrics) {
    AddExporterFamilies(scan, stats, dropped, &families);
    if (stats.process) AddProcessFamilies(*stats.process, &families);
  }
  // A family without samples (no verdict anywhere) is left out, as client libraries do.
  std::vector<MetricFamily> nonempty;
  for (MetricFamily& family : families) {
    if (!family.metric.empty()) nonempty.push_back(std::move(family));
  }
  return nonempty;
}

std::string SerializeMetricFamilies(const std::vector<MetricFamily>& families) {
  std::ostringstream out;
  prometheus::TextSerializer().Serialize(out, families);
  return out.str();
}

std::string RenderMetrics(const ScanResult& scan, const ExporterStats& stats,
                          std::vector<std::string>* dropped) {
  return SerializeMetricFamilies(BuildMetricFamilies(scan, stats, dropped));
}

}  // namespace scx
