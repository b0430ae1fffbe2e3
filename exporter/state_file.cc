// The exporter's state across restarts: encoding, decoding, loading and saving.
#include "exporter/state_file.h"

#include <sys/stat.h>

#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "base/atomic_file.h"
#include "base/json_string.h"
#include "base/strings.h"
#include "base/untrusted_file.h"
#include "engine/discovery/paths.h"
#include "engine/m1nd_files.h"

namespace scx {

namespace {

// The most the state may hold: a line of a few hundred bytes a brain leaves room for
// far more brains than one exporter serves, and a file past it is not ours.
constexpr std::int64_t kMaxStateBytes = 256LL << 20;

void AppendField(std::string_view key, std::string_view value, std::string* out) {
  out->append(",\"").append(key).append("\":\"").append(EscapeJsonString(value)).append("\"");
}

void AppendBrain(const Brain& brain, BrainState state, const Coherence* mismatch,
                 std::int64_t since_ns, std::string* out) {
  out->append("{\"name\":\"").append(EscapeJsonString(brain.name)).append("\"");
  AppendField("runtime_dir", brain.runtime_dir, out);
  AppendField("source", BrainSourceName(brain.source), out);
  AppendField("state", BrainStateName(state), out);
  if (mismatch != nullptr) {
    AppendField("project_root", brain.project_root, out);
    AppendField("display_name", brain.display_name, out);
    AppendField("identity_source", IdentitySourceName(brain.identity_source), out);
    AppendField("identity_note", brain.identity_note, out);
    AppendField("m1nd_name", brain.m1nd_name, out);
    AppendField("origin", brain.origin != nullptr ? *brain.origin : std::string(), out);
    AppendField("expected_slug", mismatch->expected_slug, out);
    AppendField("found_slug", mismatch->found_slug, out);
    AppendField("reason", mismatch->reason, out);
    out->append(",\"mismatch_since_ns\":").append(std::to_string(since_ns));
  }
  out->append("}");
}

// The string at `key` (into a std::string or a RareString), or false when it is
// missing or not a string.
template <typename Text>
bool StringAt(const nlohmann::json& entry, const char* key, Text* out) {
  const auto found = entry.find(key);
  if (found == entry.end() || !found->is_string()) return false;
  *out = found->get<std::string>();
  return true;
}

bool DecodeBrain(const nlohmann::json& entry, RememberedBrain* out) {
  if (!entry.is_object()) return false;
  Brain& brain = out->brain;
  std::string source;
  std::string state;
  if (!StringAt(entry, "name", &brain.name) ||
      !StringAt(entry, "runtime_dir", &brain.runtime_dir) || !StringAt(entry, "source", &source) ||
      !StringAt(entry, "state", &state) || !ValueOf(kBrainSources, source, &brain.source) ||
      !ValueOf(kBrainStates, state, &out->state) || brain.name.empty() ||
      brain.runtime_dir.empty()) {
    return false;
  }
  if (entry.find("expected_slug") == entry.end()) return true;
  auto mismatch = std::make_shared<Coherence>();
  mismatch->status = CoherenceStatus::kMismatch;
  std::string identity_source;
  std::string origin;
  const auto since = entry.find("mismatch_since_ns");
  if (!StringAt(entry, "project_root", &brain.project_root) ||
      !StringAt(entry, "display_name", &brain.display_name) ||
      !StringAt(entry, "identity_source", &identity_source) ||
      !ValueOf(kIdentitySources, identity_source, &brain.identity_source) ||
      !StringAt(entry, "identity_note", &brain.identity_note) ||
      !StringAt(entry, "m1nd_name", &brain.m1nd_name) || !StringAt(entry, "origin", &origin) ||
      !StringAt(entry, "expected_slug", &mismatch->expected_slug) ||
      !StringAt(entry, "found_slug", &mismatch->found_slug) ||
      !StringAt(entry, "reason", &mismatch->reason) || since == entry.end() ||
      !since->is_number_integer()) {
    return false;
  }
  if (!origin.empty()) brain.origin = std::make_shared<const std::string>(std::move(origin));
  out->mismatch = std::move(mismatch);
  out->mismatch_since_ns = since->get<std::int64_t>();
  return true;
}

}  // namespace

std::string EncodeState(const Scanner& scanner) {
  std::string out = "{\"schema\":\"";
  out.append(kStateSchema).append("\",\"brains\":[");
  bool first = true;
  scanner.ForEachRemembered([&out, &first](const Brain& brain, BrainState state,
                                           const Coherence* mismatch, std::int64_t since_ns) {
    out.append(first ? "\n" : ",\n");
    first = false;
    AppendBrain(brain, state, mismatch, since_ns, &out);
  });
  out.append("\n]}\n");
  return out;
}

int StateSchemaVersion(std::string_view schema) {
  const std::string_view prefix = kStateSchemaPrefix;
  if (schema.substr(0, prefix.size()) != prefix) return 0;
  const std::string_view digits = schema.substr(prefix.size());
  if (digits.empty() || digits.size() > 6 || digits[0] == '0') return 0;
  int version = 0;
  for (const char c : digits) {
    if (c < '0' || c > '9') return 0;
    version = version * 10 + (c - '0');
  }
  return version;
}

StateDecode DecodeState(std::string_view text, std::vector<RememberedBrain>* brains, int* skipped,
                        std::string* error) {
  *skipped = 0;
  nlohmann::json state;
  std::string parse_error;
  // The registry's nesting limit (kSerdeRecursionLimit): a state nests four deep.
  if (!ParseLikeSerde(text, /*reject_duplicate_keys=*/false, &state, &parse_error)) {
    *error = "not JSON (a torn write?): " + parse_error;
    return StateDecode::kNotAState;
  }
  std::string schema;
  if (state.is_object() && StringAt(state, "schema", &schema) &&
      StateSchemaVersion(schema) > kStateSchemaVersion) {
    *error = schema;
    return StateDecode::kNewerSchema;
  }
  if (!state.is_object() || schema != kStateSchema) {
    *error = std::string("not a state of schema ") + kStateSchema;
    return StateDecode::kNotAState;
  }
  const auto list = state.find("brains");
  if (list == state.end() || !list->is_array()) {
    *error = "no \"brains\" list";
    return StateDecode::kNotAState;
  }
  for (const nlohmann::json& entry : *list) {
    RememberedBrain brain;
    if (DecodeBrain(entry, &brain)) {
      brains->push_back(std::move(brain));
    } else {
      ++*skipped;
    }
  }
  return StateDecode::kDecoded;
}

// What a state that cannot be restored costs, in its warn line.
constexpr char kLostWithTheState[] =
    "every page held through a torn or unseen store, and the labels of the last run";

StateFile::StateFile(const std::string& folder, Logger* logger)
    : folder_(folder), path_(JoinPath(folder, kStateFileName)), logger_(logger) {}

std::vector<RememberedBrain> StateFile::Load() {
  std::vector<RememberedBrain> brains;
  std::string text;
  const UntrustedFileResult read = ReadUntrustedFile(path_, kMaxStateBytes, &text);
  if (read.error == UntrustedFileError::kAbsent) {
    logger_->Info("no state yet: starting afresh", {{"path", path_}});
    return brains;
  }
  if (read.error != UntrustedFileError::kNone) {
    restore_failed_ = true;
    logger_->Warn("cannot read the state: starting without it",
                  {{"path", path_}, {"err", read.message}, {"lost", kLostWithTheState}});
    return brains;
  }
  int skipped = 0;
  std::string error;
  const StateDecode decoded = DecodeState(text, &brains, &skipped, &error);
  if (decoded == StateDecode::kNewerSchema) {
    // A downgrade, not a torn file: say which release wrote it. The first save
    // writes this release's schema over it.
    restore_failed_ = true;
    logger_->Warn("the state was written by a newer release: starting without it",
                  {{"path", path_},
                   {"schema", error},
                   {"supported_schema", kStateSchema},
                   {"lost", kLostWithTheState}});
    return {};
  }
  if (decoded != StateDecode::kDecoded) {
    restore_failed_ = true;
    logger_->Warn("the state is corrupt: starting without it",
                  {{"path", path_}, {"err", error}, {"lost", kLostWithTheState}});
    return {};
  }
  if (skipped > 0) {
    logger_->Warn("entries of the state skipped: not whole",
                  {{"path", path_}, {"skipped", skipped}});
  }
  std::size_t mismatches = 0;
  for (const RememberedBrain& brain : brains) mismatches += brain.mismatch != nullptr ? 1 : 0;
  logger_->Info("state restored",
                {{"path", path_}, {"brains", brains.size()}, {"mismatches", mismatches}});
  return brains;
}

bool StateFile::Save(const Scanner& scanner) {
  // Gone while running (a cleanup, a wiped disk): made again. EEXIST otherwise.
  if (mkdir(folder_.c_str(), kStateFolderMode) == 0) {
    logger_->Warn("the state folder was gone: made it again", {{"path", folder_}});
  }
  std::string error;
  if (WriteFileAtomically(path_, EncodeState(scanner), &error)) {
    if (last_write_failed_) logger_->Info("the state is written again", {{"path", path_}});
    last_write_failed_ = false;
    return true;
  }
  ++write_failures_;
  // One line when writing starts failing, not one a scan.
  if (!last_write_failed_) {
    logger_->Warn("cannot write the state: a restart would lose it",
                  {{"path", path_}, {"err", error}});
  }
  last_write_failed_ = true;
  return false;
}

}  // namespace scx
