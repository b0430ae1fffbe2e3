// A text's lines, for the tests that look for one line of a rendered text (metrics,
// the --once table).
#ifndef SCX_TESTS_TEXT_LINES_H_
#define SCX_TESTS_TEXT_LINES_H_

#include <sstream>
#include <string>
#include <vector>

namespace scx {
namespace testing {

// The lines of `text`, without their newlines.
inline std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// True when `line` is one whole line of `text`.
inline bool HasLine(const std::string& text, const std::string& line) {
  for (const std::string& candidate : Lines(text)) {
    if (candidate == line) return true;
  }
  return false;
}

// How many times `part` occurs in `text` (overlapping occurrences counted).
inline std::size_t CountOf(const std::string& text, const std::string& part) {
  std::size_t count = 0;
  for (std::size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) {
    ++count;
  }
  return count;
}

}  // namespace testing
}  // namespace scx

#endif  // SCX_TESTS_TEXT_LINES_H_
