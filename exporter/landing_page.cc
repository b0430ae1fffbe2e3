// The HTML landing page.
#include "exporter/landing_page.h"

#include "engine/utf8.h"

namespace scx {

namespace {

constexpr char kTitle[] = "Skeleton Coherence Exporter";

constexpr char kStyle[] =
    "body{font-family:sans-serif;margin:2em}"
    "table{border-collapse:collapse}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left}"
    ".mismatch{background:#fdd}.unreadable{background:#ffd}";

std::string Cell(std::string_view text) { return "<td>" + HtmlEscape(text) + "</td>"; }

std::string Link(std::string_view path) {
  const std::string escaped = HtmlEscape(path);
  return "<li><a href=\"" + escaped + "\">" + escaped + "</a></li>\n";
}

// "expected X, found Y" on a mismatch; empty otherwise.
std::string VerdictText(const BrainReport& report) {
  if (!report.coherence || report.coherence->status != CoherenceStatus::kMismatch) return "";
  return "expected " + report.coherence->expected_slug + ", found " + report.coherence->found_slug;
}

std::string StateText(const BrainReport& report) {
  std::string text = BrainStateName(report.state);
  if (report.coherence && report.verdict_stale) {
    text += report.coherence->status == CoherenceStatus::kOk ? " (last verdict: ok, stale)"
                                                             : " (last verdict: mismatch, stale)";
  }
  return text;
}

std::string ReadErrorText(const BrainReport& report) {
  if (report.read_error == StoreError::kNone) return "";
  std::string text = StoreErrorName(report.read_error);
  if (!report.read_error_message.empty()) text += ": " + report.read_error_message;
  return text;
}

std::string BrainRow(const BrainReport& report) {
  return std::string("<tr class=\"") + BrainStateName(report.state) + "\">" +
         Cell(report.brain.name) + Cell(report.brain.project_root) +
         Cell(report.brain.runtime_dir) + Cell(BrainSourceName(report.brain.source)) +
         Cell(StateText(report)) + Cell(VerdictText(report)) + Cell(ReadErrorText(report)) +
         "</tr>\n";
}

std::string BrainTable(const std::vector<BrainReport>& brains, bool scanned) {
  if (!scanned) return "<p>The first scan has not completed yet.</p>\n";
  if (brains.empty()) return "<p>No brains found.</p>\n";
  std::string html =
      "<table>\n<tr><th>brain</th><th>project_root</th><th>runtime_dir</th><th>source</th>"
      "<th>state</th><th>skeleton</th><th>read error</th></tr>\n";
  for (const BrainReport& report : brains) html += BrainRow(report);
  return html + "</table>\n";
}

}  // namespace

std::string HtmlEscape(std::string_view text) {
  std::string out;
  for (char c : ToValidUtf8(text)) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string RenderLandingPage(const LandingPageInfo& info, const std::vector<BrainReport>& brains,
                              bool scanned) {
  std::string html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  html += std::string("<title>") + kTitle + "</title>\n<style>" + kStyle + "</style>\n";
  html += "</head>\n<body>\n";
  html += std::string("<h1>") + kTitle + "</h1>\n";
  html += "<p>Version " + HtmlEscape(info.version) + ", revision " + HtmlEscape(info.revision) +
          "</p>\n<ul>\n";
  html += Link(info.telemetry_path) + Link(kBrainsApiPath) + Link(kHealthyPath) + Link(kReadyPath);
  html += "</ul>\n<h2>Brains</h2>\n" + BrainTable(brains, scanned);
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace scx
