// m1nd's small files, parsed exactly as m1nd itself accepts them: the registry's
// instance records (`instances/<id>.json`), a project brain's manifest
// (`project_brain.json`) and the ingest roots (`ingest_roots.json`); and the names of
// m1nd's files and folders, the block store's among them, spelled once for discovery,
// the store reader and the change watcher.
// Pure functions of the text: no disk, no state (tests and fuzzers call them as is).
#ifndef SCX_ENGINE_M1ND_FILES_H_
#define SCX_ENGINE_M1ND_FILES_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace scx {

// serde_json refuses a document with this many arrays and objects open at once (its
// depth counter starts at 128 and fails when it reaches 0): 127 are allowed.
inline constexpr int kSerdeRecursionLimit = 128;

// Parses `text` as serde_json::from_str would accept it: no byte-order mark, no
// nesting deeper than serde's limit, and (when `reject_duplicate_keys`) no key twice
// in the top-level object, as a derived struct refuses a duplicate field. False with a
// one-line reason in *error otherwise. The registry's files are parsed with it, and
// so is the exporter's own state: one nesting limit for every JSON file it reads.
bool ParseLikeSerde(std::string_view text, bool reject_duplicate_keys, nlohmann::json* doc,
                    std::string* error);

// m1nd's folder and file names.
inline constexpr char kInstancesDir[] = "instances";           // in a registry
inline constexpr char kProjectBrainsDir[] = "project-brains";  // in a runtime root
inline constexpr char kProjectBrainManifest[] = "project_brain.json";
inline constexpr char kStoreFileName[] = "system_blocks.json";       // in a runtime dir
inline constexpr char kIngestRootsFileName[] = "ingest_roots.json";  // beside the graph
inline constexpr char kInstanceFileSuffix[] = ".json";               // "<id>.tmp" is not one
inline constexpr char kProjectBrainSchema[] = "m1nd-project-brain-v0";

// True for a registry entry m1nd lists: Rust's Path::extension() is "json", so the
// name ends in ".json" and has a stem (".json" alone has no extension).
bool IsInstanceFileName(std::string_view name);

// An instance record, the fields of m1nd's InstanceRegistryEntry this exporter uses.
struct InstanceRecord {
  std::string instance_id;
  std::string workspace_root;
  std::string runtime_root;
  std::string graph_source;
  std::string mode;             // "read_write", "read_only", or anything (= read_write for m1nd)
  bool has_brain_kind = false;  // brain_kind is a string (not null, not absent)
  std::string brain_kind;       // "medulla", "project", or another string
  std::uint32_t pid = 0;        // m1nd's process, in m1nd's pid namespace
  std::uint64_t started_at_ms = 0;
  std::uint64_t last_heartbeat_ms = 0;
};

struct InstanceRecordParse {
  bool ok = false;
  InstanceRecord record;  // when ok
  std::string error;      // when not ok: why m1nd would skip the entry
};

// Parses an instance file as m1nd's list_instances does (serde into its whole
// struct): a JSON object with the strings instance_id, workspace_root, runtime_root,
// graph_source, plasticity_state, mode, status; the unsigned integers pid (32 bits),
// started_at_ms and last_heartbeat_ms (64 bits); bind (string), port (16 bits),
// owner_live (bool) and brain_kind (string) absent or null; stale (bool) and
// conflicts (array of strings) absent or of that type; no key twice. Unknown keys are
// ignored. Anything else is an entry m1nd skips.
InstanceRecordParse ParseInstanceRecord(std::string_view text);

struct ManifestParse {
  bool ok = false;
  std::string project_root;  // when ok
  // When not ok: true when the text is not JSON at all (m1nd writes the manifest
  // without an atomic rename, so it may be caught half written); false when it is
  // JSON without a string "project_root" (not a brain folder).
  bool torn = false;
  std::string error;
};

// Parses project_brain.json as m1nd does: a JSON object whose "project_root" is a
// string is a project brain, whatever its "schema" (absent or newer included).
ManifestParse ParseProjectBrainManifest(std::string_view text);

struct IngestRootsParse {
  std::vector<std::string> roots;
  // Set when the text is not a JSON array of strings: m1nd reads that as an empty
  // list (`from_str::<Vec<String>>().ok().unwrap_or_default()`); for a debug line.
  std::string ignored_because;
  // The text is not JSON at all: possibly caught while m1nd rewrites it.
  bool torn = false;
};

// Reads ingest_roots.json as m1nd does: a JSON array of strings, anything else an
// empty list.
IngestRootsParse ParseIngestRootsAsM1nd(std::string_view text);

// The last normal component of `path` as Rust's Path::file_name() gives it:
// repeated and trailing '/' and "." components are ignored; empty when the path ends
// in ".." or has no normal component ("/", ".", "").
std::string_view FileNameOf(std::string_view path);

// False when `root`, a project_brain.json's project_root, can never equal m1nd's
// canonical_key() of any root: that key is trimmed, has no trailing '/' and is
// resolved (canonicalize(), else the trimmed text), so a root with white space around
// it or a trailing '/' never is one, and m1nd never serves that folder while it is
// dormant. Pure: a root that goes through a symlink is not found out (that would
// take a realpath of every root at every scan).
bool CouldBeCanonicalKey(std::string_view root);

}  // namespace scx

#endif  // SCX_ENGINE_M1ND_FILES_H_
