// The rules every view for people follows (the landing page, the --once table): which
// brains are in mismatch, how bad each state is, the worst-first order, and the reason
// shown beside a brain. Pure.
#ifndef SCX_EXPORTER_RENDER_DISPLAY_RULES_H_
#define SCX_EXPORTER_RENDER_DISPLAY_RULES_H_

#include <string>
#include <vector>

#include "engine/scanner.h"

namespace scx {

// True when the brain's verdict (a stale one included) is a mismatch.
bool InMismatch(const BrainReport& brain);

// How bad a state is, for the order of the table and the counts: 0 mismatch,
// 1 unreadable, 2 identity_unknown, 3 absent, 4 ok.
int StateSeverity(BrainState state);

// How bad a brain is: StateSeverity of its state, of kMismatch when its verdict (a
// stale one included) is a mismatch.
int Severity(const BrainReport& brain);

// Why the brain is in its state, for people: a mismatch's verdict reason (what the
// verdict is based on, as the JSON views give it), followed for a stale one by the read
// error that keeps it from a fresh verdict; an unreadable store's read error; why an
// identity is unknown; "no store yet"; an Ok that holds only by the prefix rule. Empty
// for a plain Ok. Not capped or escaped: each view does that.
std::string ReasonOf(const BrainReport& brain);

// `brains` ordered worst first (Severity), then by name; points into `brains`.
std::vector<const BrainReport*> WorstFirst(const std::vector<BrainReport>& brains);

}  // namespace scx

#endif  // SCX_EXPORTER_RENDER_DISPLAY_RULES_H_
