// The --once report for people: `--once --output=table` prints aligned columns (brain,
// state, expected, found, owner, reason), worst first, coloured only on a terminal.
// Pure: the caller says whether to colour.
#ifndef SCX_EXPORTER_RENDER_TABLE_VIEW_H_
#define SCX_EXPORTER_RENDER_TABLE_VIEW_H_

#include <string>
#include <vector>

#include "engine/scanner.h"

namespace scx {

// A cell never exceeds this many characters (then it ends with "..."): values come
// from files on disk and may be anything. The reason, last, may be longer.
inline constexpr std::size_t kTableCellMaxChars = 60;
inline constexpr std::size_t kTableReasonMaxChars = 200;

// One header line and one line per brain, ordered worst first (mismatch, unreadable,
// identity_unknown, absent, ok; then by name). With `color`, the state is coloured with
// ANSI escapes. `orphans`, when there are any, follow after a blank line, one per line.
std::string OnceTable(const std::vector<BrainReport>& brains, bool color,
                      const std::vector<OrphanedFolder>& orphans = {});

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_TABLE_VIEW_H_
