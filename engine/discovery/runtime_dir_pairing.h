// Which brain of the previous scan each brain of this scan continues: the one with the
// same runtime dir, whatever its name now. The scanner keeps a record (last good read,
// verdict, counters) per runtime dir, and hands it on through this pairing. Pure logic.
#ifndef SCX_ENGINE_DISCOVERY_RUNTIME_DIR_PAIRING_H_
#define SCX_ENGINE_DISCOVERY_RUNTIME_DIR_PAIRING_H_

#include <cstddef>
#include <vector>

#include "engine/discovery/types.h"

namespace scx {

inline constexpr std::size_t kNoPrevious = static_cast<std::size_t>(-1);

// For each of `brains`, the index in `previous` of the brain with the same runtime_dir,
// or kNoPrevious; a previous brain goes to one brain at most. Both lists are sorted by
// name, as a scan's brains are. A brain that kept its name and runtime dir is paired in
// one walk of both lists (nearly every brain, scan after scan); only the others are
// looked up by runtime dir, among the previous brains not paired yet, in `brains` order.
// Where runtime dirs are unique within each list, as discovery makes them, that is the
// one pairing by runtime dir.
std::vector<std::size_t> PairByRuntimeDir(const std::vector<Brain>& previous,
                                          const std::vector<Brain>& brains);

}  // namespace scx

#endif  // SCX_ENGINE_DISCOVERY_RUNTIME_DIR_PAIRING_H_
