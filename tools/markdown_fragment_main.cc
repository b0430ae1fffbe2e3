// scx-markdown-fragment INPUT.md OUTPUT.html: writes the HTML fragment of INPUT
// (tools/markdown_fragment.h). Run by the build (exporter/CMakeLists.txt) whenever
// docs/runbook.md changes.
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "tools/markdown_fragment.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: scx-markdown-fragment INPUT.md OUTPUT.html\n";
    return 2;
  }
  std::ifstream input(argv[1], std::ios::binary);
  std::stringstream markdown;
  markdown << input.rdbuf();
  if (!input) {
    std::cerr << "scx-markdown-fragment: cannot read " << argv[1] << "\n";
    return 1;
  }
  const std::string html = scx::MarkdownFragment(markdown.str());
  if (html.empty() && !markdown.str().empty()) {
    std::cerr << "scx-markdown-fragment: cmark-gfm failed on " << argv[1] << "\n";
    return 1;
  }
  std::ofstream output(argv[2], std::ios::binary | std::ios::trunc);
  output << html;
  output.close();
  if (!output) {
    std::cerr << "scx-markdown-fragment: cannot write " << argv[2] << "\n";
    return 1;
  }
  return 0;
}
