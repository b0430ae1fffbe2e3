// Aligned text table of one scan.
#include "exporter/render/table_view.h"

#include <algorithm>
#include <array>

#include "base/utf8.h"
#include "exporter/render/display_rules.h"

namespace scx {

namespace {

constexpr std::size_t kColumns = 6;
using Row = std::array<std::string, kColumns>;

constexpr char kReset[] = "\x1b[0m";

// Printable and bounded: control characters become spaces, invalid UTF-8 is
// repaired, and a long value is cut (on a character boundary) with "...".
std::string CellText(const std::string& value, std::size_t max_chars = kTableCellMaxChars) {
  std::string text = ToValidUtf8(value);
  for (char& c : text) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
  }
  std::size_t chars = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xc0) == 0x80) continue;  // continuation
    if (++chars > max_chars - 3) return text.substr(0, i) + "...";
  }
  return text;
}

// Width on a terminal: one column per character.
std::size_t Width(const std::string& text) {
  return static_cast<std::size_t>(std::count_if(text.begin(), text.end(), [](char c) {
    return (static_cast<unsigned char>(c) & 0xc0) != 0x80;
  }));
}

std::string StateText(const BrainReport& brain) {
  if (InMismatch(brain)) return brain.verdict_stale ? "mismatch (stale)" : "mismatch";
  return BrainStateName(brain.state);
}

const char* StateColor(const BrainReport& brain) {
  if (InMismatch(brain)) return "\x1b[1;31m";  // bold red
  switch (brain.state) {
    case BrainState::kUnreadable:
      return "\x1b[33m";  // yellow
    case BrainState::kIdentityUnknown:
      return "\x1b[38;5;136m";  // dark amber: no verdict, not an alarm
    case BrainState::kAbsent:
      return "\x1b[2m";  // dim
    default:
      return "\x1b[32m";  // green
  }
}

Row RowOf(const BrainReport& brain) {
  const bool verdict = brain.coherence != nullptr;
  return {CellText(brain.brain().name),
          StateText(brain),
          CellText(verdict ? brain.coherence->expected_slug : ""),
          CellText(verdict ? brain.coherence->found_slug : ""),
          CellText(brain.provenance().owner_brain),
          CellText(ReasonOf(brain), kTableReasonMaxChars)};
}

}  // namespace

std::string OnceTable(const std::vector<BrainReport>& brains, bool color,
                      const std::vector<OrphanedFolder>& orphans) {
  const std::vector<const BrainReport*> ordered = WorstFirst(brains);
  std::vector<Row> rows = {{"BRAIN", "STATE", "EXPECTED", "FOUND", "OWNER", "REASON"}};
  for (const BrainReport* brain : ordered) rows.push_back(RowOf(*brain));
  std::array<std::size_t, kColumns> widths{};
  for (const Row& row : rows) {
    for (std::size_t c = 0; c < kColumns; ++c) widths[c] = std::max(widths[c], Width(row[c]));
  }
  std::string out;
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string line;
    for (std::size_t c = 0; c < kColumns; ++c) {
      std::string cell = rows[r][c];
      if (c + 1 < kColumns) cell += std::string(widths[c] - Width(cell) + 2, ' ');
      if (color && c == 1 && r > 0) cell.insert(0, StateColor(*ordered[r - 1])).append(kReset);
      line += cell;
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    out += line + "\n";
  }
  if (!orphans.empty()) out += "\nOrphaned brain folders (not served by m1nd):\n";
  for (const OrphanedFolder& orphan : orphans) {
    out += "  " + CellText(orphan.runtime_dir, kTableReasonMaxChars) + "  (project root " +
           CellText(orphan.project_root, kTableReasonMaxChars) + ", " +
           (orphan.served_runtime_dir.empty()
                ? std::string("never served: not in m1nd's key form")
                : "served by " + CellText(orphan.served_runtime_dir, kTableReasonMaxChars)) +
           ")\n";
  }
  return out;
}

}  // namespace scx
