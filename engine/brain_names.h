// Gives every discovered brain a unique `brain` label, deterministically: a brain
// without an explicit name is named after its identity's slug; among brains that
// want the same name, an explicit (configured) name wins over a derived one, then the
// smallest runtime dir keeps it; the others get "_" + 8 hex digits of a stable hash
// (FNV-1a) of their runtime dir. Pure logic.
#ifndef SCX_ENGINE_BRAIN_NAMES_H_
#define SCX_ENGINE_BRAIN_NAMES_H_

#include <string>
#include <vector>

#include "engine/discovery.h"

namespace scx {

// The name a brain asks for: its explicit name, else SanitizeSlug of its identity.
std::string WantedBrainName(const Brain& brain);

// Sets `name` on every brain so that names are unique, then sorts brains by name.
// Appends one line per renamed brain to `collisions` (may be null).
void AssignBrainNames(std::vector<Brain>* brains, std::vector<std::string>* collisions);

}  // namespace scx

#endif  // SCX_ENGINE_BRAIN_NAMES_H_
