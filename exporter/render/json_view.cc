// JSON views of a scan: the --once report and the per-brain HTTP view.
#include "exporter/render/json_view.h"

#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/parallel_for.h"
#include "base/utf8.h"

namespace scx {

namespace {

using Json = nlohmann::ordered_json;

// Surface A's `skeleton_coherence` object, or null when there is no verdict.
Json CoherenceJson(const Coherence* coherence) {
  if (!coherence) return nullptr;
  Json out;
  if (coherence->status == CoherenceStatus::kOk) {
    out["status"] = "ok";
    out["expected_slug"] = coherence->expected_slug;
    out["found_slug"] = coherence->found_slug;
  } else {
    out["status"] = "mismatch";
    out["expected_slug"] = coherence->expected_slug;
    out["found_slug"] = coherence->found_slug;
    out["reason"] = coherence->reason;
  }
  return out;
}

Json StoreErrorJson(const BrainReport& brain) {
  return Json{{"reason", StoreErrorName(brain.read_error)}, {"message", brain.read_error_message}};
}

// "mismatch_since": Unix seconds, only while the verdict (stale included) is a mismatch.
void AddMismatchSince(const BrainReport& brain, Json* out) {
  if (brain.mismatch_since) (*out)["mismatch_since"] = *brain.mismatch_since;
}

// Whose skeleton, only what is known: "skeleton_owner" (a mismatch another known
// brain's slug accepts), "shared_with" (other brains serving the same skeleton id),
// "prefix_ambiguous" (an Ok held only by the prefix rule).
void AddProvenance(const BrainReport& brain, Json* out) {
  const SkeletonProvenance& provenance = brain.provenance();
  if (!provenance.owner_brain.empty()) (*out)["skeleton_owner"] = provenance.owner_brain;
  if (!provenance.shared_with.empty()) (*out)["shared_with"] = provenance.shared_with;
  if (provenance.shared_count > provenance.shared_with.size()) {
    (*out)["shared_with_total"] = provenance.shared_count;
  }
  if (provenance.prefix_ambiguous) {
    Json ambiguous{{"slug", provenance.ambiguous_slug}};
    if (provenance.ambiguity_allowed) ambiguous["allowed"] = true;
    if (!provenance.ambiguous_with.empty()) ambiguous["brain"] = provenance.ambiguous_with;
    (*out)["prefix_ambiguous"] = ambiguous;
  }
}

// Whether the brain's identity is unknown, and so its "identity_note" shown.
bool ShowsIdentityNote(const BrainReport& brain) {
  return brain.brain().identity_source == IdentitySource::kUnknown ||
         brain.state == BrainState::kIdentityUnknown;
}

// m1nd's own name for the brain, why its identity is unknown (only then) and whether
// it was carried over from the previous scan (always a bool).
void AddIdentity(const BrainReport& brain, Json* out) {
  (*out)["m1nd_name"] = brain.brain().m1nd_name;
  if (ShowsIdentityNote(brain)) (*out)["identity_note"] = brain.brain().identity_note;
  (*out)["carried_over"] = brain.brain().carried_over;
}

// An empty object with room for a brain's fields: an ordered_json object is a vector,
// grown (and its keys moved) field by field otherwise.
Json BrainObject() {
  Json out = Json::object();
  out.get_ptr<Json::object_t*>()->reserve(16);
  return out;
}

// Surface B: the north packet's sickness line, only on mismatch.
Json NorthJson(const Coherence& coherence) {
  return Json{{"skeleton_coherence",
               {{"status", "sick"},
                {"expected_slug", coherence.expected_slug},
                {"found_slug", coherence.found_slug},
                {"advice", kSickAdvice}}}};
}

// The one brain object of every list view, --once and GET /api/v1/brains alike
// (docs/api.md lists its fields and when each is there).
Json BrainJson(const BrainReport& brain) {
  Json out = BrainObject();
  out["brain"] = brain.brain().name;
  out["project_root"] = brain.brain().project_root;
  if (!brain.brain().display_name.empty()) out["display_name"] = brain.brain().display_name;
  out["runtime_dir"] = brain.brain().runtime_dir;
  out["source"] = BrainSourceName(brain.brain().source);
  out["identity_source"] = IdentitySourceName(brain.brain().identity_source);
  AddIdentity(brain, &out);
  out["state"] = BrainStateName(brain.state);
  // Surface A's own field (m1nd's system_blocks_snapshot), beside the store's state.
  out["present"] = brain.store != StorePresence::kAbsent;
  out["store"] = StorePresenceName(brain.store);
  if (brain.has_store_facts) {
    out["store_version"] = brain.store_version;
    out["block_count"] = brain.block_count;
  }
  out["skeleton_coherence"] = CoherenceJson(brain.coherence.get());
  out["stale"] = brain.verdict_stale;
  AddMismatchSince(brain, &out);
  AddProvenance(brain, &out);
  if (brain.state == BrainState::kUnreadable) out["store_error"] = StoreErrorJson(brain);
  if (brain.coherence && brain.coherence->status == CoherenceStatus::kMismatch) {
    out["north"] = NorthJson(*brain.coherence);
  }
  return out;
}

// Caps every string value in `json` at kMaxJsonStringBytes (base/utf8.h, CapText).
void CapStrings(Json* json) {
  if (json->is_string()) {
    const auto& text = json->get_ref<const std::string&>();
    if (text.size() > kMaxJsonStringBytes) *json = CapText(text, kMaxJsonStringBytes);
    return;
  }
  if (json->is_structured()) {
    for (Json& element : *json) CapStrings(&element);
  }
}

// Pretty-printed with a two-space indent; invalid UTF-8 in paths or ids is replaced
// rather than thrown on.
std::string DumpCapped(Json json) {
  CapStrings(&json);
  return json.dump(2, ' ', false, Json::error_handler_t::replace);
}

std::string Dump(Json json) { return DumpCapped(std::move(json)) + "\n"; }

// Brain `i` of a list of brains, or of pointers to them (a selection).
const BrainReport& At(const std::vector<BrainReport>& brains, std::size_t i) { return brains[i]; }
const BrainReport& At(const std::vector<const BrainReport*>& brains, std::size_t i) {
  return *brains[i];
}

// Appends brains [begin, end) of `brains` as DumpBrainList writes them: each brain's
// object dumped on its own and indented two levels, after a comma unless it is the
// first.
template <typename BrainList>
void AppendBrains(const BrainList& brains, std::size_t begin, std::size_t end, std::string* out) {
  constexpr std::string_view kIndent = "\n    ";
  for (std::size_t i = begin; i < end; ++i) {
    *out += i == 0 ? "" : ",";
    *out += kIndent;
    const std::string element = DumpCapped(BrainJson(At(brains, i)));
    // Newlines in the dump are its own: a newline inside a string is written as \n.
    std::size_t start = 0;
    for (std::size_t stop; (stop = element.find('\n', start)) != std::string::npos;
         start = stop + 1) {
      out->append(element, start, stop - start);
      *out += kIndent;
    }
    out->append(element, start, std::string::npos);
  }
}

// Brains a thread dumps at a time when the list is dumped on several.
constexpr std::size_t kBrainsPerPiece = 512;

// The top level's "orphaned_folders": [{"runtime_dir","project_root",
// "served_runtime_dir"}...], always present.
Json OrphansJson(const std::vector<OrphanedFolder>& orphans) {
  Json out = Json::array();
  for (const OrphanedFolder& orphan : orphans) {
    out.push_back(Json{{"runtime_dir", orphan.runtime_dir},
                       {"project_root", orphan.project_root},
                       {"served_runtime_dir", orphan.served_runtime_dir}});
  }
  return out;
}

// Appends ",\n  \"orphaned_folders\": [...]" as Dump writes a second top-level key.
void AppendOrphans(const std::vector<OrphanedFolder>& orphans, std::string* out) {
  *out += ",\n  \"orphaned_folders\": ";
  const std::string element = DumpCapped(OrphansJson(orphans));
  std::size_t start = 0;
  for (std::size_t stop; (stop = element.find('\n', start)) != std::string::npos;
       start = stop + 1) {
    out->append(element, start, stop - start);
    *out += "\n  ";
  }
  out->append(element, start, std::string::npos);
}

// Dump(Json{{"brains", [BrainJson(brain)...]}, {"omitted", *omitted} (when given),
// {"orphaned_folders", [...]}}), byte for byte, without building the whole list, into
// a string of `reserve` bytes to begin with. With `parallelism` allowing more than one
// thread, pieces of the list are dumped on several (each into a string of its own,
// joined in order afterwards into one of their joined size: twice the memory for a
// moment, for half the time on two cores).
template <typename BrainList>
std::string DumpBrainList(const BrainList& brains, const std::size_t* omitted,
                          const std::vector<OrphanedFolder>& orphans,
                          const Parallelism& parallelism, std::size_t reserve) {
  constexpr std::string_view kOpen = "{\n  \"brains\": [";
  std::string out;
  const std::size_t pieces = (brains.size() + kBrainsPerPiece - 1) / kBrainsPerPiece;
  if (ThreadsFor(parallelism, pieces) <= 1) {
    out.reserve(reserve);
    out += kOpen;
    AppendBrains(brains, 0, brains.size(), &out);
  } else {
    std::vector<std::string> texts(pieces);
    ParallelFor(pieces, parallelism, [&brains, &texts](std::size_t piece) {
      const std::size_t begin = piece * kBrainsPerPiece;
      AppendBrains(brains, begin, std::min(brains.size(), begin + kBrainsPerPiece), &texts[piece]);
    });
    std::size_t size = kOpen.size() + 64;  // and the orphaned folders' start
    for (const std::string& text : texts) size += text.size();
    out.reserve(std::max(reserve, size));
    out += kOpen;
    for (std::string& text : texts) {
      out += text;
      std::string().swap(text);
    }
  }
  out += brains.empty() ? "]" : "\n  ]";
  if (omitted != nullptr) out += ",\n  \"omitted\": " + std::to_string(*omitted);
  AppendOrphans(orphans, &out);
  out += "\n}\n";
  return out;
}

// The served views stay on the request's thread, in one string.
Parallelism OneThread() {
  Parallelism one_thread;
  one_thread.threads = 1;
  return one_thread;
}

}  // namespace

std::string OnceReport(const std::vector<BrainReport>& brains,
                       const std::vector<OrphanedFolder>& orphans) {
  // --once prints and exits: its report is dumped on every core (pieces of 512 brains).
  Parallelism parallelism;
  parallelism.min_items = 2;
  return DumpBrainList(brains, /*omitted=*/nullptr, orphans, parallelism, /*reserve=*/0);
}

std::string BrainView(const BrainReport& brain) { return Dump(BrainJson(brain)); }

std::string BrainDetailView(const BrainReport& brain, double scanned_at) {
  Json out = BrainJson(brain);
  out["scanned_at"] = scanned_at;
  if (brain.store == StorePresence::kAbsent) out["honest"] = kNoSkeletonYet;
  return Dump(out);
}

std::string BrainNorthView(const BrainReport& brain) {
  Json out;
  out["brain"] = brain.brain().name;
  Json gaps = Json::array();
  if (!brain.coherence) {
    out["map"] = Json{{"coherence", nullptr}};
  } else if (brain.coherence->status == CoherenceStatus::kOk) {
    out["map"] = Json{{"coherence", "ok"}};
  } else {
    const Coherence& verdict = *brain.coherence;
    out["map"] = Json{{"coherence", "mismatch"}};
    gaps.push_back("Skeleton coherence sickness: serving brain expects slug `" +
                   verdict.expected_slug + "`, but the SystemBlock store carries `" +
                   verdict.found_slug + "` \u2014 signal only; reads and writes remain available.");
    out["north"] = NorthJson(verdict);
  }
  out["honest_gaps"] = gaps;
  return Dump(out);
}

std::string BrainsView(const std::vector<BrainReport>& brains,
                       const std::vector<OrphanedFolder>& orphans, std::size_t reserve) {
  return DumpBrainList(brains, /*omitted=*/nullptr, orphans, OneThread(), reserve);
}

std::string FilteredBrainsView(const std::vector<BrainReport>& brains,
                               const std::vector<OrphanedFolder>& orphans,
                               const BrainFilter& filter) {
  const BrainSelection selection = SelectBrains(brains, filter);
  return DumpBrainList(selection.brains, filter.has_limit ? &selection.omitted : nullptr, orphans,
                       OneThread(), /*reserve=*/0);
}

}  // namespace scx
