// Unique, deterministic `brain` labels.
#include "engine/brain_names.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <set>
#include <string>
#include <tuple>
#include <vector>

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

// `base` + HashSuffix, then "_2", "_3"... until it is not in `taken`.
std::string FreeHashedName(const std::string& base, const std::string& runtime_dir,
                           const std::set<std::string>& taken) {
  std::string hashed = base + HashSuffix(runtime_dir);
  std::string name = hashed;
  for (int n = 2; taken.count(name); ++n) name = hashed + "_" + std::to_string(n);
  return name;
}

}  // namespace

std::string WantedBrainName(const Brain& brain) {
  if (!brain.name.empty()) return brain.name;
  return SanitizeSlug(ResolveIdentity(brain.project_root, brain.display_name));
}

void AssignBrainNames(std::vector<Brain>* brains, std::vector<std::string>* collisions) {
  std::vector<Claim> claims;
  claims.reserve(brains->size());
  for (Brain& brain : *brains) {
    claims.push_back(Claim{WantedBrainName(brain), !brain.name.empty(), &brain});
  }
  std::sort(claims.begin(), claims.end(), Precedes);

  // Every name's first claim wins it before any loser is renamed, so a renamed
  // brain never takes a name that another brain asked for.
  std::set<std::string> taken;
  std::vector<std::string> names(claims.size());
  std::vector<bool> wins(claims.size());
  for (size_t i = 0; i < claims.size(); ++i) {
    wins[i] = i == 0 || claims[i].wanted != claims[i - 1].wanted;
    if (wins[i]) {
      names[i] = claims[i].wanted;
      taken.insert(names[i]);
    }
  }
  const Claim* winner = nullptr;
  for (size_t i = 0; i < claims.size(); ++i) {
    const Claim& claim = claims[i];
    if (wins[i]) {
      winner = &claim;
      continue;
    }
    names[i] = FreeHashedName(claim.wanted, claim.brain->runtime_dir, taken);
    taken.insert(names[i]);
    if (collisions != nullptr) {
      collisions->push_back("brain name \"" + claim.wanted + "\" wanted by " +
                            winner->brain->runtime_dir + " and " + claim.brain->runtime_dir + ": " +
                            claim.brain->runtime_dir + " is named \"" + names[i] + "\"");
    }
  }
  for (size_t i = 0; i < claims.size(); ++i) claims[i].brain->name = names[i];
  std::sort(brains->begin(), brains->end(),
            [](const Brain& a, const Brain& b) { return a.name < b.name; });
}

}  // namespace scx
