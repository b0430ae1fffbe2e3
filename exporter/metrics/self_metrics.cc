// The exporter's own metrics in a prometheus-cpp Registry, and their text.
#include "exporter/metrics/self_metrics.h"

#include <prometheus/counter.h>
#include <prometheus/family.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>
#include <prometheus/metric_family.h>
#include <prometheus/registry.h>
#include <prometheus/text_serializer.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <functional>
#include <iterator>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <utility>
#include <vector>

#include "base/mutex.h"
#include "base/thread_annotations.h"
#include "exporter/metrics/metrics_renderer.h"
#include "exporter/metrics/openmetrics_serializer.h"
#include "exporter/metrics/process_metrics.h"

namespace scx {

namespace {

using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;

constexpr char kPrefix[] = "skeleton_coherence_exporter_";

double Bool(bool value) { return value ? 1 : 0; }

double NonNegative(std::int64_t count) {
  return static_cast<double>(std::max<std::int64_t>(count, 0));
}

// The families in the order of docs/metrics.md, each one's series sorted by labels
// (a Registry hands them out by type, a family's series in hash order).
void SortForTheText(const std::map<std::string, int>& rank,
                    std::vector<prometheus::MetricFamily>* families) {
  const auto rank_of = [&rank](const prometheus::MetricFamily& family) {
    const auto it = rank.find(family.name);
    return it == rank.end() ? static_cast<int>(rank.size()) : it->second;
  };
  std::stable_sort(families->begin(), families->end(),
                   [&](const prometheus::MetricFamily& a, const prometheus::MetricFamily& b) {
                     return rank_of(a) < rank_of(b);
                   });
  for (prometheus::MetricFamily& family : *families) {
    std::sort(family.metric.begin(), family.metric.end(),
              [](const prometheus::ClientMetric& a, const prometheus::ClientMetric& b) {
                return a.label < b.label;
              });
  }
}

// Runs `write` on a thread of its own and hands its text in a format to every caller of
// Get that asked for that format before that run began (see self_metrics.h for why).
class TextWriter {
 public:
  explicit TextWriter(std::function<std::string(ExpositionFormat)> write)
      : write_(std::move(write)), thread_([this] { Run(); }) {}
  ~TextWriter() {
    {
      MutexLock lock(&mutex_);
      stop_ = true;
    }
    asked_.NotifyAll();
    thread_.join();
  }
  TextWriter(const TextWriter&) = delete;
  TextWriter& operator=(const TextWriter&) = delete;

  std::shared_ptr<const std::string> Get(ExpositionFormat format) SCX_EXCLUDES(mutex_) {
    const auto f = static_cast<std::size_t>(format);
    MutexLock lock(&mutex_);
    const std::uint64_t ticket = ++asks_[f];
    asked_.NotifyAll();
    while (answered_[f] < ticket) written_.Wait(&mutex_);
    return text_[f];
  }

 private:
  // A format whose asks are not answered yet; false when none.
  bool Pending(std::size_t* format) const SCX_REQUIRES(mutex_) {
    for (std::size_t f = 0; f < kExpositionFormats; ++f) {
      if (answered_[f] < asks_[f]) {
        *format = f;
        return true;
      }
    }
    return false;
  }

  void Run() SCX_EXCLUDES(mutex_) {
    mutex_.lock();
    for (;;) {
      std::size_t f = 0;
      while (!stop_ && !Pending(&f)) asked_.Wait(&mutex_);
      if (stop_) break;
      const std::uint64_t answers = asks_[f];
      mutex_.unlock();
      auto text = std::make_shared<const std::string>(write_(static_cast<ExpositionFormat>(f)));
      mutex_.lock();
      text_[f].swap(text);
      answered_[f] = answers;
      written_.NotifyAll();
      mutex_.unlock();
      text.reset();  // the previous text, freed here unless a scrape still holds it
      mutex_.lock();
    }
    mutex_.unlock();
  }

  const std::function<std::string(ExpositionFormat)> write_;
  Mutex mutex_;
  CondVar asked_;
  CondVar written_;
  // By format: the texts asked for so far, the asks the current text answers, the text.
  std::array<std::uint64_t, kExpositionFormats> asks_ SCX_GUARDED_BY(mutex_){};
  std::array<std::uint64_t, kExpositionFormats> answered_ SCX_GUARDED_BY(mutex_){};
  std::array<std::shared_ptr<const std::string>, kExpositionFormats> text_ SCX_GUARDED_BY(mutex_);
  bool stop_ SCX_GUARDED_BY(mutex_) = false;
  std::thread thread_;  // last: starts once the rest is ready
};

// Holds one scrape in the in-flight gauge while it lives.
class InFlightToken {
 public:
  explicit InFlightToken(Gauge* gauge) : gauge_(gauge) { gauge_->Increment(); }
  ~InFlightToken() { gauge_->Decrement(); }
  InFlightToken(const InFlightToken&) = delete;
  InFlightToken& operator=(const InFlightToken&) = delete;

 private:
  Gauge* const gauge_;
};

// The codes each handler's request counter starts with (promhttp's for its handler).
constexpr int kInitialCodes[] = {200, 500, 503};

}  // namespace

struct SelfMetrics::Impl {
  Impl(const Options& options, Logger* logger) : options(options), logger(logger) {
    const auto labels = BuildInfoLabels(options.build);
    Register(prometheus::BuildGauge(), "build_info",
             "Version, revision, branch, compiler and platform of the exporter. Always 1.")
        .Add(prometheus::Labels(labels.begin(), labels.end()))
        .Set(1);
    scan_duration = &Register(prometheus::BuildGauge(), "scan_duration_seconds",
                              "Wall time of the last completed scan.")
                         .Add({});
    scan_seconds =
        &Register(prometheus::BuildHistogram(), "scan_seconds", "Wall time of completed scans.")
             .Add({}, Histogram::BucketBoundaries(std::begin(kScanSecondsBuckets),
                                                  std::end(kScanSecondsBuckets)));
    last_scan_timestamp = &Register(prometheus::BuildGauge(), "last_scan_timestamp_seconds",
                                    "Unix time at which the last scan completed.")
                               .Add({});
    last_scan_success = &Register(prometheus::BuildGauge(), "last_scan_success",
                                  "1 when the last scan could read every discovery source, else 0.")
                             .Add({});
    scan_interval = &Register(prometheus::BuildGauge(), "scan_interval_seconds",
                              "The configured scan interval.")
                         .Add({});
    scans = &Register(prometheus::BuildCounter(), "scans_total", "Completed scans.").Add({});
    // Every value of a vocabulary is exported from zero, so that its first occurrence
    // shows as an increase.
    Family<Counter>& discovery = Register(prometheus::BuildCounter(), "discovery_errors_total",
                                          "Discovery problems by source.");
    for (const Term<DiscoveryProblemSource>& source : kDiscoveryProblemSources) {
      discovery_errors[source.value] = &discovery.Add({{"source", source.name}});
    }
    Family<Gauge>& brains =
        Register(prometheus::BuildGauge(), "brains", "Brains by state in the last scan.");
    for (const Term<BrainState>& state : kBrainStates) {
      brains_by_state[state.value] = &brains.Add({{"state", state.name}});
    }
    orphaned_folders = &Register(prometheus::BuildGauge(), "orphaned_folders",
                                 "Folders under project-brains/ left behind by an older m1nd "
                                 "build (their project root is served by another folder) in "
                                 "the last scan.")
                            .Add({});
    Family<Gauge>& conflicts =
        Register(prometheus::BuildGauge(), "registry_conflicts",
                 "Registry records the last scan refused or demoted, by reason: foreign_owner "
                 "(the record's file owner could not have written the runtime dir it names as "
                 "m1nd; ignored), future_heartbeat (a heartbeat in the future, never the "
                 "freshest, on a runtime dir another record claims too).");
    for (const Term<RegistryConflictReason>& reason : kRegistryConflictReasons) {
      registry_conflicts[reason.value] = &conflicts.Add({{"reason", reason.name}});
    }
    stores_parsed = &Register(prometheus::BuildCounter(), "stores_parsed_total",
                              "Stores read and parsed because their file stamp changed.")
                         .Add({});
    stores_unchanged =
        &Register(prometheus::BuildCounter(), "stores_unchanged_total",
                  "Store reads skipped because device, inode, size, mtime and ctime were "
                  "unchanged.")
             .Add({});
    Family<Counter>& read_errors =
        Register(prometheus::BuildCounter(), "store_read_errors_total",
                 "Store reads that failed, by reason: one per unreadable brain and scan.");
    for (const Term<StoreError>& reason : kStoreErrors) {
      if (IsReadError(reason.value))
        store_read_errors[reason.value] = &read_errors.Add({{"reason", reason.name}});
    }
    config_last_reload_successful =
        &Register(prometheus::BuildGauge(), "config_last_reload_successful",
                  "1 when the last config load (start or reload) succeeded.")
             .Add({});
    config_last_reload_successful->Set(1);  // the config was loaded at start
    Family<Counter>& reloads = Register(prometheus::BuildCounter(), "config_reloads_total",
                                        "Config reloads (SIGHUP or POST /-/reload) by result.");
    reloads_success = &reloads.Add({{"result", "success"}});
    reloads_failure = &reloads.Add({{"result", "failure"}});
    watched_dirs = &Register(prometheus::BuildGauge(), "watched_dirs",
                             "Folders watched with inotify after the last scan (0: timer only).")
                        .Add({});
    watch_limited = &Register(prometheus::BuildGauge(), "watch_limited",
                              "1 when a watch limit left some folders to the timer scan alone.")
                         .Add({});
    watch_triggered_scans = &Register(prometheus::BuildCounter(), "watch_triggered_scans_total",
                                      "Scans started at once by a change seen with inotify.")
                                 .Add({});
    state_write_failures =
        &Register(prometheus::BuildCounter(), "state_write_failures_total",
                  "Writes of the state (--storage.path) that failed: a restart would lose "
                  "the verdicts and labels since the last good write.")
             .Add({});
    state_restore_failures =
        &Register(prometheus::BuildCounter(), "state_restore_failures_total",
                  "Starts whose state (--storage.path) existed but could not be restored "
                  "(unreadable, corrupt, or of a newer release): the pages it held are gone.")
             .Add({});
    // Registered by SetTlsCertificateNotAfter, with TLS only; its place is here.
    rank.emplace(std::string(kPrefix) + kTlsNotAfter, static_cast<int>(rank.size()));
    http_requests = &Register(prometheus::BuildCounter(), "http_requests_total",
                              "HTTP requests answered, by handler (the path it is registered "
                              "at, or other) and status code.");
    scrapes_in_flight = &Register(prometheus::BuildGauge(), "scrapes_in_flight",
                                  "Scrapes of the metrics endpoint being served, this one "
                                  "included.")
                             .Add({});
    Family<Counter>& auth =
        Register(prometheus::BuildCounter(), "http_auth_failures_total",
                 "Requests basic auth did not allow (401, or 429 when rate limited), by reason.");
    for (const Term<AuthFailure>& reason : kAuthFailures) {
      auth_failures[static_cast<std::size_t>(reason.value)] = &auth.Add({{"reason", reason.name}});
    }
    tls_handshake_failures =
        &Register(prometheus::BuildCounter(), "tls_handshake_failures_total",
                  "Connections to a TLS listener closed before their TLS handshake completed.")
             .Add({});
    runbook_info = &Register(prometheus::BuildGauge(), "runbook_info",
                             "The scheme this exporter serves its runbook (/runbook) with, "
                             "for the alerts' links. Always 1.");
    runbook_series = &runbook_info->Add({{"scheme", "http"}});
    runbook_series->Set(1);
  }

  // Registers the family kPrefix + `name`, in the order of the document.
  template <typename Metric>
  Family<Metric>& Register(prometheus::detail::Builder<Metric> builder, const std::string& name,
                           const std::string& help) {
    const std::string full = kPrefix + name;
    rank.emplace(full, static_cast<int>(rank.size()));
    return builder.Name(full).Help(help).Register(registry);
  }

  // The process collector's text, read from /proc now; "" (and a warn line, once
  // until /proc can be read again) when it cannot be read.
  std::string ProcessText(ExpositionFormat format) const {
    ProcessStats process;
    std::string error;
    if (!ReadProcessStats(&process, &error)) {
      if (!process_error_logged.exchange(true)) {
        logger->Warn("process metrics unavailable", {{"err", error}});
      }
      return {};
    }
    process_error_logged = false;
    return RenderProcessMetrics(process, format);
  }

  static constexpr char kTlsNotAfter[] = "tls_certificate_not_after_seconds";

  const Options options;
  Logger* const logger;
  prometheus::Registry registry;
  std::map<std::string, int> rank;  // family name -> place in the text; written at construction
  Gauge* scan_duration = nullptr;
  Histogram* scan_seconds = nullptr;
  Gauge* last_scan_timestamp = nullptr;
  Gauge* last_scan_success = nullptr;
  Gauge* scan_interval = nullptr;
  Counter* scans = nullptr;
  std::map<DiscoveryProblemSource, Counter*> discovery_errors;
  std::map<StoreError, Counter*> store_read_errors;  // the read errors (IsReadError)
  std::map<BrainState, Gauge*> brains_by_state;
  Gauge* orphaned_folders = nullptr;
  std::map<RegistryConflictReason, Gauge*> registry_conflicts;
  Counter* stores_parsed = nullptr;
  Counter* stores_unchanged = nullptr;
  Gauge* config_last_reload_successful = nullptr;
  Counter* reloads_success = nullptr;
  Counter* reloads_failure = nullptr;
  Gauge* watched_dirs = nullptr;
  Gauge* watch_limited = nullptr;
  Counter* watch_triggered_scans = nullptr;
  Counter* state_write_failures = nullptr;
  Counter* state_restore_failures = nullptr;
  Family<Counter>* http_requests = nullptr;
  Gauge* scrapes_in_flight = nullptr;
  std::array<Counter*, std::size(kAuthFailures)> auth_failures{};
  Counter* tls_handshake_failures = nullptr;

  std::mutex tls_mutex;  // SetTlsCertificateNotAfter's family, present only with TLS
  Family<Gauge>* tls_not_after = nullptr;
  Family<Gauge>* runbook_info = nullptr;
  Gauge* runbook_series = nullptr;  // guarded by tls_mutex after construction

  // The exporter's families, then the process collector's.
  std::string Write(ExpositionFormat format) const {
    std::vector<prometheus::MetricFamily> families = registry.Collect();
    SortForTheText(rank, &families);
    std::string text;
    if (format == ExpositionFormat::kOpenMetrics) {
      SerializeOpenMetrics(families, &text);
    } else {
      std::ostringstream out;
      prometheus::TextSerializer().Serialize(out, families);
      text = out.str();
    }
    if (options.process) text += ProcessText(format);
    return text;
  }

  mutable std::atomic<bool> process_error_logged{false};
  // Last: stopped before the registry it reads goes. None when disabled.
  std::unique_ptr<TextWriter> writer;
};

SelfMetrics::SelfMetrics(const Options& options, Logger* logger)
    : impl_(std::make_unique<Impl>(options, logger)) {
  if (options.enabled) {
    impl_->writer = std::make_unique<TextWriter>(
        [impl = impl_.get()](ExpositionFormat format) { return impl->Write(format); });
  }
}

SelfMetrics::~SelfMetrics() = default;

void SelfMetrics::RecordScan(const ScanResult& result, double seconds, double finished_at) {
  impl_->scans->Increment();
  impl_->scan_duration->Set(seconds);
  impl_->scan_seconds->Observe(seconds);
  impl_->last_scan_timestamp->Set(finished_at);
  impl_->last_scan_success->Set(Bool(result.problems.empty()));
  for (const DiscoveryProblem& problem : result.problems) {
    impl_->discovery_errors.at(problem.source)->Increment();
  }
  std::map<BrainState, int> states;
  for (const BrainReport& report : result.brains) {
    ++states[report.state];
    if (IsReadError(report.read_error)) impl_->store_read_errors.at(report.read_error)->Increment();
  }
  for (const auto& [state, gauge] : impl_->brains_by_state) gauge->Set(states[state]);
  impl_->orphaned_folders->Set(static_cast<double>(result.orphans.size()));
  std::map<RegistryConflictReason, int> conflicts;
  for (const RegistryConflict& conflict : result.conflicts) ++conflicts[conflict.reason];
  for (const auto& [reason, gauge] : impl_->registry_conflicts) gauge->Set(conflicts[reason]);
  impl_->stores_parsed->Increment(NonNegative(result.stores_parsed));
  impl_->stores_unchanged->Increment(NonNegative(result.stores_unchanged));
}

void SelfMetrics::RecordWatchTriggeredScan() { impl_->watch_triggered_scans->Increment(); }

void SelfMetrics::RecordStateWriteFailure() { impl_->state_write_failures->Increment(); }

void SelfMetrics::RecordStateRestoreFailure() { impl_->state_restore_failures->Increment(); }

void SelfMetrics::SetScanInterval(double seconds) { impl_->scan_interval->Set(seconds); }

void SelfMetrics::SetWatches(std::uint64_t watched_dirs, bool limited) {
  impl_->watched_dirs->Set(static_cast<double>(watched_dirs));
  impl_->watch_limited->Set(Bool(limited));
}

void SelfMetrics::RecordConfigReload(bool success) {
  (success ? impl_->reloads_success : impl_->reloads_failure)->Increment();
  impl_->config_last_reload_successful->Set(Bool(success));
}

void SelfMetrics::SetRunbookScheme(const std::string& scheme) {
  std::lock_guard<std::mutex> lock(impl_->tls_mutex);
  impl_->runbook_info->Remove(impl_->runbook_series);
  impl_->runbook_series = &impl_->runbook_info->Add({{"scheme", scheme}});
  impl_->runbook_series->Set(1);
}

void SelfMetrics::SetTlsCertificateNotAfter(std::optional<std::int64_t> not_after_seconds) {
  std::lock_guard<std::mutex> lock(impl_->tls_mutex);
  if (!not_after_seconds) {
    if (impl_->tls_not_after != nullptr) impl_->registry.Remove(*impl_->tls_not_after);
    impl_->tls_not_after = nullptr;
    return;
  }
  if (impl_->tls_not_after == nullptr) {
    impl_->tls_not_after = &prometheus::BuildGauge()
                                .Name(std::string(kPrefix) + Impl::kTlsNotAfter)
                                .Help(
                                    "Unix time after which the served TLS certificate "
                                    "(cert_file) is no longer valid.")
                                .Register(impl_->registry);
  }
  impl_->tls_not_after->Add({}).Set(static_cast<double>(*not_after_seconds));
}

void SelfMetrics::InitializeRequestCounts(const std::vector<std::string>& handlers) {
  for (const std::string& handler : handlers) {
    for (const int code : kInitialCodes) {
      impl_->http_requests->Add({{"handler", handler}, {"code", std::to_string(code)}});
    }
  }
}

std::shared_ptr<const void> SelfMetrics::StartScrape() const {
  return std::make_shared<const InFlightToken>(impl_->scrapes_in_flight);
}

void SelfMetrics::OnRequest(const std::string& handler, int status) {
  impl_->http_requests->Add({{"handler", handler}, {"code", std::to_string(status)}}).Increment();
}

void SelfMetrics::OnAuthFailure(AuthFailure reason) {
  const auto index = static_cast<std::size_t>(reason);
  if (index < impl_->auth_failures.size()) impl_->auth_failures[index]->Increment();
}

void SelfMetrics::OnTlsHandshakeFailure() { impl_->tls_handshake_failures->Increment(); }

std::shared_ptr<const std::string> SelfMetrics::SharedText(ExpositionFormat format) const {
  if (impl_->writer == nullptr) return std::make_shared<const std::string>();
  return impl_->writer->Get(format);
}

}  // namespace scx
