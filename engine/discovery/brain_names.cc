// Unique, deterministic `brain` labels.
#include "engine/discovery/brain_names.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_set>
#include <utility>
#include <vector>

#include "base/permute.h"
#include "base/strings.h"
#include "base/view_index.h"
#include "engine/slug.h"

namespace scx {

namespace {

// FNV-1a, 32 bits.
std::uint32_t Fnv1a32(const std::string& text) {
  std::uint32_t hash = 2166136261u;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

// "_" + 8 lowercase hex digits of the runtime dir's hash.
std::string HashSuffix(const std::string& runtime_dir) {
  char buffer[16];
  std::snprintf(buffer, sizeof(buffer), "_%08x", static_cast<unsigned>(Fnv1a32(runtime_dir)));
  return buffer;
}

struct Claim {
  std::string wanted;
  bool is_explicit = false;
  Brain* brain = nullptr;
  std::string held;  // the label this brain keeps from the previous scan; empty: none
};

// Claims on one name in the order they win it: explicit before derived, then the
// smallest runtime dir; the remaining fields only make the order total.
bool Precedes(const Claim& a, const Claim& b) {
  const Brain& x = *a.brain;
  const Brain& y = *b.brain;
  return std::tie(a.wanted, b.is_explicit, x.runtime_dir, x.project_root, x.display_name,
                  x.source) <
         std::tie(b.wanted, a.is_explicit, y.runtime_dir, y.project_root, y.display_name, y.source);
}

// True when `label`, a brain's label in the previous scan, is what AssignBrainNames
// could have given it for `wanted`: the name itself or the name with its own suffix.
bool IsLabelFor(std::string_view label, const std::string& wanted, const std::string& runtime_dir) {
  if (label == wanted) return true;
  const std::string hashed = wanted + HashSuffix(runtime_dir);
  if (!StartsWith(label, hashed)) return false;
  if (label.size() == hashed.size()) return true;
  // FreeHashedName's counter: "_2", "_3", ...
  const std::string_view counter = label.substr(hashed.size());
  return counter.size() > 1 && counter[0] == '_' &&
         counter.find_first_not_of("0123456789", 1) == std::string_view::npos;
}

// `base` + HashSuffix, then "_2", "_3"... until `taken(name)` is false.
template <typename IsTaken>
std::string FreeHashedName(const std::string& base, const std::string& runtime_dir,
                           const IsTaken& taken) {
  std::string hashed = base + HashSuffix(runtime_dir);
  std::string name = hashed;
  for (int n = 2; taken(name); ++n) name = hashed + "_" + std::to_string(n);
  return name;
}

}  // namespace

std::string WantedBrainName(const Brain& brain) {
  if (!brain.name.empty()) return brain.name;
  // Without an identity, the name m1nd's brain list gives it, else its folder's.
  if (brain.identity_source == IdentitySource::kUnknown) {
    return SanitizeSlug(brain.m1nd_name.empty() ? BasenameOf(brain.runtime_dir) : brain.m1nd_name);
  }
  return SanitizeSlug(ResolveIdentity(brain.project_root, brain.display_name));
}

void AssignBrainNames(std::vector<Brain>* brains, const std::vector<Brain>& previous,
                      std::vector<std::string>* collisions) {
  // Views into `previous` and into the claims (which are not moved once sorted), in
  // flat indexes (base/view_index.h): every scan does this for every brain, and hash
  // maps of a node per brain grow much faster than the fleet (warm_scan_bench).
  ViewIndex previous_labels(previous.size());  // runtime dir -> index in `previous`
  for (std::size_t i = 0; i < previous.size(); ++i) {
    previous_labels.Emplace(previous[i].runtime_dir, i);
  }

  std::vector<Claim> claims;
  claims.reserve(brains->size());
  for (Brain& brain : *brains) {
    Claim claim{WantedBrainName(brain), !brain.name.empty(), &brain, ""};

    const std::size_t before = previous_labels.Find(brain.runtime_dir);
    if (before != ViewIndex::kNone) {
      const std::string& label = previous[before].name;
      // A brain keeps the label it had, whatever its identity says now (its repo
      // hidden for a while, re-ingested, renamed): its series and alerts stay whose
      // they were. Only a name the config gives it wins over its label.
      // Without an identity it wants nothing else (no collision line for it).
      if (!claim.is_explicit && brain.identity_source == IdentitySource::kUnknown) {
        claim.wanted = label;
      }
      if (!claim.is_explicit || IsLabelFor(label, claim.wanted, brain.runtime_dir)) {
        claim.held = label;
      }
    }
    claims.push_back(std::move(claim));
  }
  std::sort(claims.begin(), claims.end(), Precedes);

  ViewIndex owners(claims.size());  // name -> index of the claim that has it
  std::vector<std::string> names(claims.size());
  // Incumbents keep their labels (unique, as every previous scan's labels were).
  for (size_t i = 0; i < claims.size(); ++i) {
    if (!claims[i].held.empty() && owners.Emplace(claims[i].held, i).second) {
      names[i] = claims[i].held;
    }
  }
  // Every name still free goes to its first claim before any loser is renamed, so a
  // renamed brain never takes a name that another brain asked for.
  for (size_t i = 0; i < claims.size(); ++i) {
    if (names[i].empty() && owners.Emplace(claims[i].wanted, i).second) {
      names[i] = claims[i].wanted;
    }
  }
  std::unordered_set<std::string> renamed;  // names given by FreeHashedName so far
  auto taken = [&owners, &renamed](const std::string& name) {
    return owners.Find(name) != ViewIndex::kNone || renamed.count(name) != 0;
  };
  for (size_t i = 0; i < claims.size(); ++i) {
    const Claim& claim = claims[i];
    if (names[i] == claim.wanted) continue;
    if (names[i].empty()) {
      names[i] = FreeHashedName(claim.wanted, claim.brain->runtime_dir, taken);
      renamed.insert(names[i]);
    }
    if (collisions == nullptr) continue;
    const std::string& dir = claim.brain->runtime_dir;
    const std::size_t owner = owners.Find(claim.wanted);
    std::string message = "brain name \"";
    message.append(claim.wanted).append("\" wanted by ");
    if (owner != ViewIndex::kNone) {
      message.append(claims[owner].brain->runtime_dir).append(" and ").append(dir);
      message.append(": ").append(dir).append(" is named \"").append(names[i]).append("\"");
    } else {
      message.append(dir).append(": ").append(dir);
      message.append(" keeps the name \"").append(names[i]).append("\" it already has");
    }
    collisions->push_back(std::move(message));
  }
  // Sorted by name, then each brain moved once: a Brain holds many strings, and
  // sorting the brains themselves moved each one dozens of times. The claims are in
  // the order of the names they want, and nearly every brain is named as it wants:
  // their order is then the brains' by name, and is only checked (sorting 100,000
  // brains by name through their scattered names cost a quarter of the naming).
  // They are moved in place, along the cycles of the order: a sorted copy of 100,000
  // brains was the exporter's peak of memory.
  std::vector<std::size_t> order(claims.size());  // order[k]: the brain that goes to k
  for (std::size_t i = 0; i < claims.size(); ++i) {
    order[i] = static_cast<std::size_t>(claims[i].brain - brains->data());
  }
  const bool claims_in_name_order = std::is_sorted(names.begin(), names.end());
  for (std::size_t i = 0; i < claims.size(); ++i) claims[i].brain->name = std::move(names[i]);
  if (!claims_in_name_order) {
    std::sort(order.begin(), order.end(), [brains](std::size_t a, std::size_t b) {
      return (*brains)[a].name < (*brains)[b].name;
    });
  }
  PermuteInPlace(std::move(order), brains);
}

void AssignBrainNames(std::vector<Brain>* brains, std::vector<std::string>* collisions) {
  AssignBrainNames(brains, {}, collisions);
}

}  // namespace scx
