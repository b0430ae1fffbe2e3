// Turns the latest scan into the per-brain metrics of docs/metrics.md, and the
// process's figures into the process collector's, in the Prometheus text format or
// OpenMetrics. Pure: no I/O, no clock, no globals.
#ifndef SCX_EXPORTER_METRICS_METRICS_RENDERER_H_
#define SCX_EXPORTER_METRICS_METRICS_RENDERER_H_

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/metrics/process_stats.h"
#include "exporter/metrics/prometheus_text.h"  // kMaxLabelValueBytes

namespace scx {

// Which per-brain series RenderMetrics writes besides the default set (docs/metrics.md,
// "Series per brain"). The default set is at most 8 series for a healthy brain.
struct BrainMetricsOptions {
  // --metrics.store-details: skeleton_coherence_store_version and the per-brain
  // skeleton_coherence_store_read_errors_total, one per reason (6 series a brain with
  // a store, 5 without; zeros for almost every brain, hence off by default).
  bool store_details = false;
};

// The per-brain families of docs/metrics.md (the verdict, whose skeleton, per brain)
// in `format` (the Prometheus text format 0.0.4 or OpenMetrics 1.0.0, without its
// closing "# EOF": the exporter's own families follow), in the order of that document;
// a family with no sample (e.g. no brain has a verdict) is left out. A sample whose
// label set already exists in its family is dropped (it would make the whole scrape
// invalid) and described in `dropped` (may be null). Brains are unique by name, so
// nothing is dropped unless that guarantee breaks. Written straight into the returned
// string: no object per sample. `reserve`: the bytes to reserve for it, e.g. the size
// of an earlier render of the same brains (0: the string grows as it is written). The
// exporter's own families are not a scan's: they are written at each scrape
// (exporter/metrics/self_metrics.h), after these.
std::string RenderMetrics(const ScanResult& scan, std::vector<std::string>* dropped,
                          const BrainMetricsOptions& options = {},
                          ExpositionFormat format = ExpositionFormat::kText,
                          std::size_t reserve = 0);

// The same text, handed to `sink` in order in pieces of about `piece_bytes` (a piece
// ends after a brain's samples or a family once it holds that many bytes, so the
// whole text is never in memory at once; the last piece may be shorter).
void RenderMetricsTo(const ScanResult& scan, const BrainMetricsOptions& options,
                     ExpositionFormat format, std::vector<std::string>* dropped,
                     std::size_t piece_bytes,
                     const std::function<void(std::string_view piece)>& sink);

// The process collector's families of docs/metrics.md ("The exporter process"), with
// the names, types and help texts of the Prometheus client libraries, in `format`.
std::string RenderProcessMetrics(const ProcessStats& process,
                                 ExpositionFormat format = ExpositionFormat::kText);

}  // namespace scx

#endif  // SCX_EXPORTER_METRICS_METRICS_RENDERER_H_
