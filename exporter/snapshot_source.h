// What the HTTP handlers read from the scan loop: its latest snapshot (which also
// tells whether the first scan has completed). An interface, so that the handlers
// can be tested with a fake (tests/exporter/handlers_test.cc); ScanLoop implements it.
//
// Thread-safety: snapshot() may be called from any thread, several at once.
#ifndef SCX_EXPORTER_SNAPSHOT_SOURCE_H_
#define SCX_EXPORTER_SNAPSHOT_SOURCE_H_

#include <memory>

namespace scx {

class Snapshot;

class SnapshotSource {
 public:
  virtual ~SnapshotSource() = default;

  // The latest snapshot; scan_number 0 (with only the landing page) before the first
  // scan completes. Never null.
  virtual std::shared_ptr<const Snapshot> snapshot() const = 0;
};

}  // namespace scx

#endif  // SCX_EXPORTER_SNAPSHOT_SOURCE_H_
