// The exporter's own state, kept across restarts in a folder of its own
// (--storage.path): the label of every brain and, for each brain serving a foreign
// skeleton, its identity and last verdict. Restored at start, it lets a page stand
// through a restart while the exporter cannot judge the brain (a torn store, a runtime
// dir out of view), and keeps the labels the last run gave. Written atomically
// (base/atomic_file.h) after a scan that changed a state or a label; never in or
// beside a brain. A missing, unreadable or corrupt state is a warning, never a stop;
// so is a state of a newer schema (a downgrade), named as such with both versions.
//
// Format (JSON, one brain a line): {"schema": kStateSchema, "brains": [{"name",
// "runtime_dir", "source", "state", and with a mismatch "project_root", "display_name",
// "identity_source", "identity_note", "m1nd_name", "origin", "expected_slug",
// "found_slug", "reason", "mismatch_since_ns"}]}.
//
// Thread-safety: EncodeState and DecodeState are pure. A StateFile is used by one
// thread at a time (the service at start, then the scan thread).
#ifndef SCX_EXPORTER_STATE_FILE_H_
#define SCX_EXPORTER_STATE_FILE_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scanner.h"
#include "exporter/logger.h"

namespace scx {

inline constexpr char kStateSchemaPrefix[] = "skeleton-coherence-exporter-state-v";
inline constexpr int kStateSchemaVersion = 1;
inline constexpr char kStateSchema[] = "skeleton-coherence-exporter-state-v1";
inline constexpr char kStateFileName[] = "state.json";

// The state of every brain `scanner` remembers (Scanner::ForEachRemembered).
std::string EncodeState(const Scanner& scanner);

// The N of a schema "skeleton-coherence-exporter-state-vN" (N > 0), or 0 when
// `schema` is not of that form.
int StateSchemaVersion(std::string_view schema);

// What DecodeState made of a text.
enum class StateDecode {
  kDecoded,      // a state of kStateSchema
  kNotAState,    // torn, not JSON, not this exporter's, or an older schema
  kNewerSchema,  // a state a newer release wrote (a downgrade): not read
};

// Parses a state. Anything but kDecoded comes with a reason in *error (for
// kNewerSchema, the schema found); entries that are not whole are skipped and
// counted in *skipped.
StateDecode DecodeState(std::string_view text, std::vector<RememberedBrain>* brains, int* skipped,
                        std::string* error);

// The mode of a state folder the exporter makes (at start, or again when it is gone).
inline constexpr unsigned kStateFolderMode = 0750;

class StateFile {
 public:
  // The state is `folder`/kStateFileName. `logger` outlives it. A folder that does not
  // exist (deleted while the exporter runs) is made again by the next Save, mode
  // 0750, one level only: a missing parent is a failed write.
  StateFile(const std::string& folder, Logger* logger);

  const std::string& path() const { return path_; }

  // The state of the last run, or nothing (with a warn line) when it cannot be had.
  // A state that exists but cannot be restored (unreadable, corrupt, of a newer
  // release) sets restore_failed(): the held pages of the last run are gone.
  std::vector<RememberedBrain> Load();
  bool restore_failed() const { return restore_failed_; }

  // Writes the state of `scanner`; false (with a warn line) when it could not be.
  // A folder deleted while the exporter runs is made again (one level, as at start).
  bool Save(const Scanner& scanner);

  std::uint64_t write_failures() const { return write_failures_; }

 private:
  const std::string folder_;
  const std::string path_;
  Logger* const logger_;
  std::uint64_t write_failures_ = 0;
  bool last_write_failed_ = false;
  bool restore_failed_ = false;
};

}  // namespace scx

#endif  // SCX_EXPORTER_STATE_FILE_H_
