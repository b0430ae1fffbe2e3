// The HTML landing page.
#include "exporter/render/landing_page.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <iterator>

#include "base/utf8.h"

namespace scx {

namespace {

constexpr char kTitle[] = "Skeleton Coherence Exporter";

// Brains named in a red banner before "and N more".
constexpr size_t kBannerNames = 10;

// The table's columns, in order; also the labels of the cells in the narrow layout.
constexpr const char* kColumns[] = {"brain",          "state",   "expected slug", "found slug",
                                    "mismatch since", "runbook", "reason",        "project_root",
                                    "runtime_dir",    "source",  "named by"};

// Below this width the table turns into one block per brain, each cell a line led by
// its column's name: eleven columns do not fit a phone (390 px) side by side. Wider,
// kFitScript does the same when a fleet's long names would still widen the table past
// the window.
constexpr char kNarrowWidth[] = "60em";

// The page fits the window, from a phone's 390 px to 1,280 px and beyond, with no
// sideways scrolling: the table is as wide as its content up to the page's width, and
// values from disk (labels, slugs, reasons, paths) wrap after a `_`, `-` or `/`
// (WrappableHtml), never inside a word while a separator is left to break at.
constexpr char kStyle[] =
    "body{font-family:sans-serif;margin:1.5em}"
    ".banner{padding:.75em 1em;font-size:1.4em;font-weight:bold;color:#fff;border-radius:4px;"
    "overflow-wrap:break-word}"
    ".banner a{color:#fff}.banner .detail{font-size:.6em;font-weight:normal}"
    ".banner.red{background:#c62828}.banner.green{background:#2e7d32}"
    ".banner.grey{background:#616161}"
    "table{border-collapse:collapse;margin-top:1em;font-size:.9em}"
    "th,td{border:1px solid #ccc;padding:.25em .5em;text-align:left;vertical-align:top}"
    "td.brain,td.slug,td.reason,td.path{overflow-wrap:break-word}td.reason{min-width:10em}"
    "tr.mismatch{background:#fdd}tr.mismatch td.state{color:#b71c1c;font-weight:bold}"
    "tr.unreadable{background:#ffd}time .day,.age{white-space:nowrap}"
    "tr.identity_unknown{background:#f3f3f3}tr.identity_unknown td.state{color:#8d6e00}"
    ".badge{background:#b71c1c;color:#fff;border-radius:3px;padding:0 .3em;font-size:.8em}"
    "#orphans{overflow-wrap:break-word}nav{display:flex;flex-wrap:wrap}nav a{margin-right:1em}";

// The narrow layout of the table `table` (a selector): the header row hidden, each row
// a bordered block, each non-empty cell a line labelled by CSS from kColumns (no label
// bytes per row).
std::string NarrowRules(const std::string& table) {
  std::string css =
      table + "," + table + " tbody," + table + " tr," + table + " td{display:block}" + table +
      " thead{display:none}" + table + " tr{margin-bottom:.75em}" + table +
      " td{border-width:0 1px}" + table + " tr td:first-child{border-top-width:1px}" + table +
      " tr td:last-child{border-bottom-width:1px}" + table + " td:empty{display:none}" + table +
      " td::before{font-weight:bold;margin-right:.5em}";
  for (std::size_t i = 0; i < std::size(kColumns); ++i) {
    css += table + " td:nth-child(" + std::to_string(i + 1) + ")::before{content:\"" + kColumns[i] +
           "\"}";
  }
  return css;
}

// The narrow layout below kNarrowWidth, and wherever kFitScript marks the table.
std::string NarrowStyle() {
  return "@media (max-width:" + std::string(kNarrowWidth) + "){" + NarrowRules("#brains") + "}" +
         NarrowRules("#brains.narrow");
}

// Marks the table `narrow` when, laid out as a table, it would make the page scroll
// sideways; checked at load and on every resize.
constexpr char kFitScript[] =
    "function scxFit(){var t=document.getElementById('brains'),d=document.documentElement;"
    "if(!t)return;t.classList.remove('narrow');"
    "if(d.scrollWidth>d.clientWidth)t.classList.add('narrow');}"
    "scxFit();window.addEventListener('resize',scxFit);";

// Where a value from disk may wrap: after a separator between two other characters.
bool IsSeparator(char c) { return c == '_' || c == '-' || c == '/'; }
bool InWord(char c) { return !IsSeparator(c) && c != ' '; }

// `text` escaped (HtmlEscape), with <wbr> after each `_`, `-` and `/` inside a word
// (another character, not a space, on either side): "sk_keyvault" may wrap as "sk_" /
// "keyvault", the leading "/" of a path stays with its first folder. Copied text has
// no trace of it.
std::string WrappableHtml(std::string_view text) {
  std::string html;
  std::size_t start = 0;
  for (std::size_t i = 1; i + 1 < text.size(); ++i) {
    if (IsSeparator(text[i]) && InWord(text[i - 1]) && InWord(text[i + 1])) {
      html += HtmlEscape(text.substr(start, i + 1 - start)) + "<wbr>";
      start = i + 1;
    }
  }
  return html + HtmlEscape(text.substr(start));
}

// Keeps every element with data-unix showing its age, as FormatAge does.
constexpr char kAgeScript[] =
    "function scxAge(s){s=Math.max(0,Math.floor(s));var d=Math.floor(s/86400),"
    "h=Math.floor(s%86400/3600),m=Math.floor(s%3600/60),x=s%60;"
    "if(d>0)return d+'d '+h+'h';if(h>0)return h+'h '+m+'m';if(m>0)return m+'m '+x+'s';"
    "return x+'s';}"
    "function scxTick(){var now=Date.now()/1000;"
    "document.querySelectorAll('[data-unix]').forEach(function(e){"
    "e.textContent=scxAge(now-parseFloat(e.getAttribute('data-unix')));});}"
    "scxTick();setInterval(scxTick,1000);";

std::string Cell(std::string_view text, const char* css_class = nullptr) {
  std::string open = css_class ? std::string("<td class=\"") + css_class + "\">" : "<td>";
  return open + HtmlEscape(text) + "</td>";
}

// A cell of a value from disk, which may wrap at its separators.
std::string WrappableCell(std::string_view text, const char* css_class) {
  return std::string("<td class=\"") + css_class + "\">" + WrappableHtml(text) + "</td>";
}

std::string Anchor(const std::string& href, std::string_view text) {
  return "<a href=\"" + HtmlEscape(href) + "\">" + HtmlEscape(text) + "</a>";
}

std::string FormatUnix(double unix_seconds) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.3f", unix_seconds);
  return buffer;
}

// "<time>2026-11-30 02:00:00 UTC</time>, <age> ago", the age kept current by the script.
// The date in one piece ("2026-11-30" never wraps at its hyphens), the time of day
// after it may go to the next line.
std::string TimeAndAge(double unix_seconds, double now) {
  const std::string utc = FormatUtc(unix_seconds);
  const std::size_t space = utc.find(' ');
  return "<time><span class=\"day\">" + utc.substr(0, space) + "</span>" + utc.substr(space) +
         "</time>, <span class=\"age\" data-unix=\"" + FormatUnix(unix_seconds) + "\">" +
         FormatAge(now - unix_seconds) + "</span> ago";
}

std::string StateCell(const BrainReport& report) {
  if (InMismatch(report)) {
    std::string html = "<td class=\"state\">mismatch";
    if (report.verdict_stale) {
      html += " <span class=\"badge\">stale</span> last good verdict; the store is unreadable now";
    }
    return html + "</td>";
  }
  if (report.state == BrainState::kIdentityUnknown) return Cell("identity unknown", "state");
  std::string text = BrainStateName(report.state);
  if (report.coherence && report.verdict_stale) text += " (last verdict: ok, stale)";
  return Cell(text, "state");
}

std::string SinceCell(const BrainReport& report, double now) {
  if (!report.mismatch_since) return "<td></td>";
  return "<td class=\"since\">" + TimeAndAge(*report.mismatch_since, now) + "</td>";
}

std::string RunbookCell(const BrainReport& report, std::string_view runbook) {
  if (InMismatch(report)) {
    std::string html = "<td>" + Anchor(RunbookLink(runbook, kRunbookMismatch), "mismatch");
    if (report.verdict_stale)
      html += ", " + Anchor(RunbookLink(runbook, kRunbookStaleVerdicts), "stale");
    return html + "</td>";
  }
  if (report.state == BrainState::kUnreadable) {
    return "<td>" + Anchor(RunbookLink(runbook, kRunbookUnreadable), "unreadable") + "</td>";
  }
  if (report.state == BrainState::kIdentityUnknown) {
    return "<td>" + Anchor(RunbookLink(runbook, kRunbookIdentityUnknown), "identity unknown") +
           "</td>";
  }
  return "<td></td>";
}

// The found slug of a mismatch, and whose skeleton it is when another known brain's
// slug accepts it.
std::string FoundCell(const BrainReport& report) {
  if (!InMismatch(report)) return Cell("", "slug");
  const std::string& owner = report.provenance().owner_brain;
  if (owner.empty()) return WrappableCell(report.coherence->found_slug, "slug");
  return "<td class=\"slug\">" + WrappableHtml(report.coherence->found_slug) +
         " <span class=\"owner\">(" + WrappableHtml(owner) + "'s skeleton)</span></td>";
}

std::string RowClass(const BrainReport& report) {
  if (InMismatch(report)) return report.verdict_stale ? "mismatch stale" : "mismatch";
  return BrainStateName(report.state);
}

std::string BrainRow(const BrainReport& report, double now, std::string_view runbook) {
  const bool mismatch = InMismatch(report);
  return "<tr class=\"" + RowClass(report) + "\" data-brain=\"" + HtmlEscape(report.brain().name) +
         "\">" + WrappableCell(report.brain().name, "brain") + StateCell(report) +
         WrappableCell(mismatch ? report.coherence->expected_slug : "", "slug") +
         FoundCell(report) + SinceCell(report, now) + RunbookCell(report, runbook) +
         WrappableCell(ReasonOf(report), "reason") +
         WrappableCell(report.brain().project_root, "path") +
         WrappableCell(report.brain().runtime_dir, "path") +
         WrappableCell(BrainSourceName(report.brain().source), "source") +
         WrappableCell(IdentitySourceName(report.brain().identity_source), "named-by") + "</tr>\n";
}

// Per state (indexed by BrainState), the brains left out of the table.
using OmittedByState = std::array<std::size_t, std::size(kBrainStates)>;

// The table of the brains `filter` asks for, worst first, at most `per_state` of each
// state (0: all); those left out are counted in `omitted`.
std::string BrainTable(const std::vector<BrainReport>& brains, double now, std::string_view runbook,
                       const BrainFilter& filter, std::size_t per_state, OmittedByState* omitted) {
  std::string rows;
  OmittedByState shown{};
  for (const BrainReport* report : WorstFirst(brains)) {
    if (!filter.Matches(*report)) continue;
    const auto state = static_cast<std::size_t>(report->state);
    if (per_state != 0 && shown[state] == per_state) {
      ++(*omitted)[state];
      continue;
    }
    ++shown[state];
    rows += BrainRow(*report, now, runbook);
  }
  if (rows.empty()) return filter.empty() ? "" : "<p id=\"no-match\">No brain matches.</p>\n";
  std::string header;
  for (const char* column : kColumns) header += std::string("<th>") + column + "</th>";
  return "<table id=\"brains\">\n<thead><tr>" + header + "</tr></thead>\n<tbody>\n" + rows +
         "</tbody>\n</table>\n";
}

// "N more S — show all" under the table, for each state with rows left out, linking to
// the page of that state alone, uncapped.
std::string MoreLines(const OmittedByState& omitted) {
  std::string html;
  for (const Term<BrainState>& state : kBrainStates) {
    const std::size_t count = omitted[static_cast<std::size_t>(state.value)];
    if (count == 0) continue;
    html +=
        std::string("<p class=\"more\" data-state=\"") + state.name + "\">" +
        std::to_string(count) + " more " + state.name + " \u2014 " +
        Anchor(std::string(kLandingPagePath) + "?state=" + state.name + "&limit=0", "show all") +
        "</p>\n";
  }
  return html;
}

// What a filtered page shows, and the way back to the whole fleet.
std::string FilterLine(const BrainFilter& filter, std::size_t per_state) {
  if (filter.empty()) return "";
  std::string states;
  for (const BrainState state : filter.states) {
    states += (states.empty() ? "" : ", ") + std::string(BrainStateName(state));
  }
  std::string html = "<p id=\"filter\">Showing ";
  html += states.empty() ? "every state" : "state " + states;
  html += per_state == 0 ? ", every brain" : ", at most " + std::to_string(per_state) + " a state";
  return html + " \u00b7 " + Anchor(kLandingPagePath, "back to the default page") + "</p>\n";
}

// Folders an older m1nd build left under project-brains/: never brains, only listed.
std::string OrphanList(const std::vector<OrphanedFolder>& orphans) {
  if (orphans.empty()) return "";
  std::string html =
      "<h2>Orphaned brain folders (not served by m1nd)</h2>\n"
      "<p>Left behind by an older m1nd build: another folder serves their project root. They "
      "get no verdict and never page.</p>\n<ul id=\"orphans\">\n";
  for (const OrphanedFolder& orphan : orphans) {
    html += "<li><code>" + WrappableHtml(orphan.runtime_dir) + "</code> (project root <code>" +
            WrappableHtml(orphan.project_root) + "</code>, " +
            (orphan.served_runtime_dir.empty()
                 ? std::string("never served: m1nd's key for a root is never that text")
                 : "served by <code>" + WrappableHtml(orphan.served_runtime_dir) + "</code>") +
            ")</li>\n";
  }
  return html + "</ul>\n";
}

std::string Plural(size_t count, const char* one, const char* many) {
  return std::to_string(count) + " " + (count == 1 ? one : many);
}

// "41 brains: 1 mismatch, 0 unreadable, 0 absent, 40 ok" (a stale mismatch counts
// as a mismatch, not as unreadable).
std::string Counts(const std::vector<BrainReport>& brains) {
  std::vector<Term<BrainState>> states(std::begin(kBrainStates), std::end(kBrainStates));
  std::stable_sort(states.begin(), states.end(), [](const auto& a, const auto& b) {
    return StateSeverity(a.value) < StateSeverity(b.value);
  });
  std::string text = Plural(brains.size(), "brain", "brains") + ":";
  for (const Term<BrainState>& state : states) {
    size_t count = 0;
    for (const BrainReport& report : brains) {
      count += Severity(report) == StateSeverity(state.value) ? 1 : 0;
    }
    text += (&state == &states.front() ? " " : ", ") + std::to_string(count) + " " + state.name;
  }
  return text;
}

std::string Banner(const char* color, const std::string& headline, const std::string& detail) {
  return std::string("<div id=\"banner\" class=\"banner ") + color +
         "\" role=\"status\"><div class=\"headline\">" + headline + "</div><div class=\"detail\">" +
         detail + "</div></div>\n";
}

std::string RenderBanner(const std::vector<BrainReport>& brains, bool scanned,
                         std::string_view runbook) {
  if (!scanned)
    return Banner("grey", "Waiting for the first scan", "The first scan has not completed yet.");
  if (brains.empty()) {
    return Banner("grey", "Nothing watched: no brains found",
                  Anchor(RunbookLink(runbook, kRunbookNoBrains), "runbook: no brains watched"));
  }
  std::vector<std::string> names;
  for (const BrainReport* report : WorstFirst(brains)) {
    if (InMismatch(*report)) names.push_back(report->brain().name);
  }
  if (names.empty()) {
    return Banner("green", "All coherent: every brain serves its own skeleton",
                  HtmlEscape(Counts(brains)));
  }
  std::string headline = HtmlEscape(names.size() == 1 ? "1 brain serves a foreign skeleton: "
                                                      : std::to_string(names.size()) +
                                                            " brains serve a foreign skeleton: ");
  for (size_t i = 0; i < names.size() && i < kBannerNames; ++i) {
    headline += (i ? ", " : "") + std::string("<span class=\"name\">") + WrappableHtml(names[i]) +
                "</span>";
  }
  if (names.size() > kBannerNames) {
    headline += " and " + std::to_string(names.size() - kBannerNames) + " more";
  }
  return Banner(
      "red", headline,
      HtmlEscape(Counts(brains)) + " · " +
          Anchor(RunbookLink(runbook, kRunbookMismatch), "runbook: SkeletonCoherenceMismatch"));
}

std::string Nav(const LandingPageInfo& info) {
  return "<nav>" + Anchor(info.telemetry_path, info.telemetry_path) +
         Anchor(kBrainsApiPath, kBrainsApiPath) + Anchor(kHealthyPath, kHealthyPath) +
         Anchor(kReadyPath, kReadyPath) + Anchor(RunbookLink(info.runbook_url, ""), "runbook") +
         "</nav>\n";
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

std::string RunbookLink(std::string_view runbook_url, std::string_view anchor) {
  std::string link(runbook_url);
  if (!anchor.empty()) link += "#" + std::string(anchor);
  return link;
}

std::string FormatAge(double seconds) {
  const long long total = seconds > 0 ? static_cast<long long>(std::floor(seconds)) : 0;
  const long long days = total / 86400;
  const long long hours = total % 86400 / 3600;
  const long long minutes = total % 3600 / 60;
  const long long rest = total % 60;
  if (days > 0) return std::to_string(days) + "d " + std::to_string(hours) + "h";
  if (hours > 0) return std::to_string(hours) + "h " + std::to_string(minutes) + "m";
  if (minutes > 0) return std::to_string(minutes) + "m " + std::to_string(rest) + "s";
  return std::to_string(rest) + "s";
}

std::string FormatUtc(double unix_seconds) {
  const auto time = static_cast<std::time_t>(std::floor(unix_seconds));
  std::tm parts{};
  gmtime_r(&time, &parts);
  char buffer[40];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%d %H:%M:%S UTC", &parts);
  return buffer;
}

std::string LandingPageStyle() { return kStyle + NarrowStyle(); }

std::string LandingPageScript() { return std::string(kAgeScript) + kFitScript; }

std::string RenderLandingPage(const LandingPageInfo& info, const std::vector<BrainReport>& brains,
                              bool scanned, double scan_time,
                              const std::vector<OrphanedFolder>& orphans,
                              const BrainFilter& filter) {
  std::string html =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  html += std::string("<title>") + kTitle + "</title>\n<style>" + LandingPageStyle() + "</style>\n";
  html += "</head>\n<body>\n";
  html += RenderBanner(brains, scanned, info.runbook_url);
  html += std::string("<h1>") + kTitle + "</h1>\n";
  if (scanned) {
    html += "<p id=\"last-scan\">Last scan: " + TimeAndAge(scan_time, scan_time) + "</p>\n";
  }
  const std::size_t per_state = filter.has_limit ? filter.limit : kLandingPageRowsPerState;
  OmittedByState omitted{};
  html += FilterLine(filter, per_state);
  html += BrainTable(brains, scan_time, info.runbook_url, filter, per_state, &omitted);
  html += MoreLines(omitted);
  html += OrphanList(orphans);
  html += Nav(info);
  html += "<p>Version " + HtmlEscape(info.version) + ", revision " + HtmlEscape(info.revision) +
          "</p>\n";
  html += "<script>" + LandingPageScript() + "</script>\n";
  html += "</body>\n</html>\n";
  return html;
}

}  // namespace scx
