// JSON views of a scan: the --once report and the per-brain HTTP view.
#include "exporter/json_view.h"

#include <nlohmann/json.hpp>

#include "engine/utf8.h"

namespace scx {

namespace {

using Json = nlohmann::ordered_json;

// Surface A's `skeleton_coherence` object, or null when there is no verdict.
Json CoherenceJson(const std::optional<Coherence>& coherence) {
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
  const SkeletonProvenance& provenance = brain.provenance;
  if (!provenance.owner_brain.empty()) (*out)["skeleton_owner"] = provenance.owner_brain;
  if (!provenance.shared_with.empty()) (*out)["shared_with"] = provenance.shared_with;
  if (provenance.shared_count > provenance.shared_with.size()) {
    (*out)["shared_with_total"] = provenance.shared_count;
  }
  if (provenance.prefix_ambiguous) {
    Json ambiguous{{"slug", provenance.ambiguous_slug}};
    if (!provenance.ambiguous_with.empty()) ambiguous["brain"] = provenance.ambiguous_with;
    (*out)["prefix_ambiguous"] = ambiguous;
  }
}

Json OnceBrain(const BrainReport& brain) {
  Json out;
  out["brain"] = brain.brain.name;
  out["project_root"] = brain.brain.project_root;
  out["runtime_dir"] = brain.brain.runtime_dir;
  out["source"] = BrainSourceName(brain.brain.source);
  out["identity_source"] = IdentitySourceName(brain.brain.identity_source);
  out["store"] = StorePresenceName(brain.store);
  if (brain.state == BrainState::kUnreadable) out["store_error"] = StoreErrorJson(brain);
  out["skeleton_coherence"] = CoherenceJson(brain.coherence);
  AddMismatchSince(brain, &out);
  AddProvenance(brain, &out);
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

Json BrainJson(const BrainReport& brain) {
  Json out;
  out["brain"] = brain.brain.name;
  out["project_root"] = brain.brain.project_root;
  if (!brain.brain.display_name.empty()) out["display_name"] = brain.brain.display_name;
  out["runtime_dir"] = brain.brain.runtime_dir;
  out["source"] = BrainSourceName(brain.brain.source);
  out["identity_source"] = IdentitySourceName(brain.brain.identity_source);
  out["state"] = BrainStateName(brain.state);
  out["present"] = brain.store != StorePresence::kAbsent;
  if (brain.has_store_facts) {
    out["store_version"] = brain.store_version;
    out["block_count"] = brain.block_count;
  }
  out["skeleton_coherence"] = CoherenceJson(brain.coherence);
  out["stale"] = brain.verdict_stale;
  AddMismatchSince(brain, &out);
  AddProvenance(brain, &out);
  if (brain.state == BrainState::kUnreadable) out["store_error"] = StoreErrorJson(brain);
  if (brain.coherence && brain.coherence->status == CoherenceStatus::kMismatch) {
    out["north"] = NorthJson(*brain.coherence);
  }
  return out;
}

// Caps every string value in `json` at kMaxJsonStringBytes (engine/utf8.h, CapText).
void CapStrings(Json* json) {
  if (json->is_string()) {
    const std::string& text = json->get_ref<const std::string&>();
    if (text.size() > kMaxJsonStringBytes) *json = CapText(text, kMaxJsonStringBytes);
    return;
  }
  if (json->is_structured()) {
    for (Json& element : *json) CapStrings(&element);
  }
}

std::string Dump(Json json) {
  CapStrings(&json);
  // Invalid UTF-8 in paths or ids is replaced rather than thrown on.
  return json.dump(2, ' ', false, Json::error_handler_t::replace) + "\n";
}

}  // namespace

std::string OnceReport(const std::vector<BrainReport>& brains) {
  Json list = Json::array();
  for (const BrainReport& brain : brains) list.push_back(OnceBrain(brain));
  return Dump(Json{{"brains", list}});
}

std::string BrainView(const BrainReport& brain) { return Dump(BrainJson(brain)); }

std::string BrainDetailView(const BrainReport& brain, double scanned_at) {
  Json out = BrainJson(brain);
  out["scanned_at"] = scanned_at;
  if (!out["present"].get<bool>()) out["honest"] = kNoSkeletonYet;
  return Dump(out);
}

std::string BrainNorthView(const BrainReport& brain) {
  Json out;
  out["brain"] = brain.brain.name;
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

std::string JsonError(const std::string& message) { return Dump(Json{{"error", message}}); }

std::string BrainsView(const std::vector<BrainReport>& brains) {
  Json list = Json::array();
  for (const BrainReport& brain : brains) list.push_back(BrainJson(brain));
  return Dump(Json{{"brains", list}});
}

}  // namespace scx
