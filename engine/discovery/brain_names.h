// Gives every discovered brain a unique `brain` label, deterministically: a brain
// without an explicit name is named after its identity's slug. Names are stable: a
// brain that had a label in the previous scan keeps it for as long as it exists (its
// runtime dir), whatever its identity says now, unless the config names it otherwise. Among the
// other brains that want the same name (and at start-up, when there is no previous scan), an
// explicit (configured) name wins over a derived one, then the smallest runtime dir keeps it; the
// others get "_" + 8 hex digits of a stable hash (FNV-1a) of their runtime dir. Pure logic.
#ifndef SCX_ENGINE_DISCOVERY_BRAIN_NAMES_H_
#define SCX_ENGINE_DISCOVERY_BRAIN_NAMES_H_

#include <string>
#include <vector>

#include "engine/discovery/types.h"

namespace scx {

// The name a brain asks for: its explicit name, else SanitizeSlug of its identity
// (undecided: of its m1nd_name, else of its runtime dir's basename).
std::string WantedBrainName(const Brain& brain);

// Sets `name` on every brain so that names are unique, then sorts brains by name.
// `previous` is the previous scan's brains with their labels (empty at start-up): a
// brain with the same runtime dir keeps that label (with an explicit name, only when
// the label is that name or that name with its own hash suffix), and a newcomer that
// wants it gets a suffix.
// Appends one line per brain not named as it wants to `collisions` (may be null).
void AssignBrainNames(std::vector<Brain>* brains, const std::vector<Brain>& previous,
                      std::vector<std::string>* collisions);

// The start-up rule: AssignBrainNames with no previous scan.
void AssignBrainNames(std::vector<Brain>* brains, std::vector<std::string>* collisions);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_BRAIN_NAMES_H_
