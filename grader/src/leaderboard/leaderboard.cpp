#include "grader/leaderboard.hpp"

#include "grader/gradebook.hpp"  // csv_field

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

namespace grader::leaderboard {

namespace {

// The interval a row is compared with. Without one (low and high 0), the median alone: two
// equal medians still tie, and a row without an interval cannot tie everything below it.
double lower(const BoardRow& r) {
  const auto& t = r.timing;
  return t.low_ms > 0 ? std::min(t.low_ms, t.median_ms) : t.median_ms;
}
double upper(const BoardRow& r) {
  const auto& t = r.timing;
  return std::max(t.high_ms, t.median_ms);
}

// Four significant digits: enough to tell entries apart, whatever the scale (us to s).
std::string ms(double v) { return fmt::format("{:.4g}", v); }
std::string percent(double fraction) { return fmt::format("{:.2f}%", 100 * fraction); }

std::string rank_label(const BoardRow& r) {
  if (r.timing.tier) return "ref";
  return std::to_string(r.rank) + (r.tied ? "=" : "");
}

// "2025-05-01T14:03:59Z" -> "2025-05-01 14:03"; anything else as it is.
std::string short_date(const std::string& iso) {
  if (iso.size() >= 16 && iso[10] == 'T') return iso.substr(0, 10) + " " + iso.substr(11, 5);
  return iso;
}

std::string gpu_label(const BoardRow& r) {
  return r.gpu_clock_mhz > 0 ? fmt::format("{}, {} MHz", r.gpu, r.gpu_clock_mhz) : r.gpu;
}

// Two entries whose medians are less than 1% apart are not ordered: one GPU's clocks and
// temperature move a timing that much between runs (identical copies of the reference, timed on
// an H100 in one run: 1.867 and 1.871 ms; across three runs the reference: 1.871 to 1.881 ms). For
// ranking, every interval reaches at least half of that on each side of its median.
constexpr double kSameSpeed = 0.01;
double tie_low(const BoardRow& r) { return std::min(lower(r), r.timing.median_ms * (1 - kSameSpeed / 2)); }
double tie_high(const BoardRow& r) { return std::max(upper(r), r.timing.median_ms * (1 + kSameSpeed / 2)); }

}  // namespace

void rank_rows(std::vector<BoardRow>& rows) {
  std::stable_sort(rows.begin(), rows.end(), [](const BoardRow& a, const BoardRow& b) {
    if (a.timing.median_ms != b.timing.median_ms) return a.timing.median_ms < b.timing.median_ms;
    return a.timing.entry < b.timing.entry;
  });
  std::size_t begin = 0;
  int students_before = 0;
  while (begin < rows.size()) {
    // The group: every following row whose interval starts before the group's reach ends.
    std::size_t end = begin + 1;
    double reach = tie_high(rows[begin]);
    while (end < rows.size() && tie_low(rows[end]) <= reach) reach = std::max(reach, tie_high(rows[end++]));
    const bool tied = end - begin > 1;
    int students = 0;
    for (std::size_t i = begin; i < end; ++i) {
      rows[i].tied = tied;
      rows[i].rank = rows[i].timing.tier ? 0 : students_before + 1;
      if (!rows[i].timing.tier) ++students;
    }
    students_before += students;
    begin = end;
  }
}

// ---- Markdown ------------------------------------------------------------------------------

namespace {

// A table cell: backslash-escapes what Markdown would read as markup or as a cell boundary
// (an id like "a|b" or "<img ...>" stays text), line breaks become spaces.
std::string md_cell(const std::string& s) {
  std::string out;
  for (char ch : s) {
    if (ch == '\n' || ch == '\r' || ch == '\t') {
      out += ' ';
      continue;
    }
    if (std::string_view("\\`*_[]<>|#!~&").find(ch) != std::string_view::npos) out += '\\';
    out += ch;
  }
  return out;
}

}  // namespace

std::string to_markdown(const Board& b) {
  std::string md = fmt::format("# Leaderboard: {} / {}\n\n", md_cell(b.lab), md_cell(b.exercise));
  if (!b.generated_at.empty()) md += fmt::format("Generated {}. ", md_cell(b.generated_at));
  md +=
      "Times are medians per call in ms, with an interval of about 95%. Rows whose intervals "
      "overlap are tied (`=`), and so are rows whose medians are less than 1% apart: that run cannot order "
      "them. CV is robust (the interquartile range over 1.349 medians): one stray call does not move it. "
      "Reference tiers are in bold.\n\n";
  if (b.rows.empty()) {
    md += "No valid entries yet.\n";
  } else {
    md +=
        "| rank | entry | median (ms) | interval (ms) | CV | date | GPU | status |\n"
        "|---:|---|---:|---|---:|---|---|---|\n";
    for (const auto& r : b.rows) {
      const auto& t = r.timing;
      const std::string entry = t.tier ? "**" + md_cell(t.entry) + "**" : md_cell(t.entry);
      const std::string status = t.reason.empty() ? md_cell(t.status) : md_cell(t.status + ": " + t.reason);
      md += fmt::format("| {} | {} | {} | [{}, {}] | {} | {} | {} | {} |\n", rank_label(r), entry, ms(t.median_ms),
                        ms(t.low_ms), ms(t.high_ms), percent(t.cv), md_cell(short_date(r.date)), md_cell(gpu_label(r)),
                        status);
    }
  }
  if (!b.invalid.empty()) {
    md +=
        "\n## Invalid entries\n\nNo valid time in any run; the reason from the latest one.\n\n"
        "| entry | date | GPU | reason |\n|---|---|---|---|\n";
    for (const auto& r : b.invalid)
      md += fmt::format("| {} | {} | {} | {} |\n", md_cell(r.timing.entry), md_cell(short_date(r.date)),
                        md_cell(gpu_label(r)), md_cell(r.timing.reason));
  }
  return md;
}

// ---- CSV and JSON --------------------------------------------------------------------------

std::string to_csv(const Board& b) {
  std::string out = "rank,tied,entry,tier,status,median_ms,low_ms,high_ms,cv,samples,date,gpu,gpu_clock_mhz,reason\n";
  const auto line = [&](const BoardRow& r, bool ranked) {
    const auto& t = r.timing;
    const std::string rank = ranked && !t.tier ? std::to_string(r.rank) : "";
    out +=
        fmt::format("{},{},{},{},{},{},{},{},{},{},{},{},{},{}\n", rank, r.tied ? "true" : "false", csv_field(t.entry),
                    t.tier ? "true" : "false", csv_field(t.status), t.median_ms, t.low_ms, t.high_ms, t.cv, t.samples,
                    csv_field(r.date), csv_field(r.gpu), r.gpu_clock_mhz, csv_field(t.reason));
  };
  for (const auto& r : b.rows) line(r, true);
  for (const auto& r : b.invalid) line(r, false);
  return out;
}

namespace {
nlohmann::json row_json(const BoardRow& r) {
  const auto& t = r.timing;
  return {{"rank", r.rank},
          {"tied", r.tied},
          {"entry", t.entry},
          {"tier", t.tier},
          {"status", t.status},
          {"reason", t.reason},
          {"median_ms", t.median_ms},
          {"low_ms", t.low_ms},
          {"high_ms", t.high_ms},
          {"cv", t.cv},
          {"samples", t.samples},
          {"date", r.date},
          {"gpu", r.gpu},
          {"gpu_clock_mhz", r.gpu_clock_mhz},
          {"run_id", r.run_id}};
}
}  // namespace

nlohmann::json to_json(const Board& b) {
  nlohmann::json rows = nlohmann::json::array(), invalid = nlohmann::json::array();
  for (const auto& r : b.rows) rows.push_back(row_json(r));
  for (const auto& r : b.invalid) invalid.push_back(row_json(r));
  return {
      {"lab", b.lab}, {"exercise", b.exercise}, {"generated_at", b.generated_at}, {"rows", rows}, {"invalid", invalid}};
}

// ---- HTML ----------------------------------------------------------------------------------

namespace {

// Text and attribute values alike. '=' and '`' too, so that no fragment of an id can read as
// markup or as an attribute even to a careless reader of the source (or a test grepping "src=").
std::string esc(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (char ch : s) {
    switch (ch) {
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
      case '=':
        out += "&#61;";
        break;
      case '`':
        out += "&#96;";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

// At most n characters (UTF-8 code points, never half of one), with an ellipsis when cut.
std::string clip(const std::string& s, std::size_t n) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars++ == n) return s.substr(0, i) + "\u2026";
  }
  return s;
}

const char* kStyle = R"(
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: #1d232b; margin: 0; background: #f6f7f9; }
main { max-width: 1100px; margin: 0 auto; padding: 24px 28px 48px; }
h1 { font-size: 24px; margin: 0 0 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; }
p.meta { color: #59636e; margin: 0 0 18px; }
figure { margin: 0 0 12px; background: #fff; border: 1px solid #d9dee4; border-radius: 6px; padding: 8px; }
svg { display: block; width: 100%; height: auto; }
svg text { font: 12px system-ui, sans-serif; fill: #1d232b; }
svg .axis text { fill: #59636e; }
svg .grid { stroke: #e3e7ec; }
svg .whisker { stroke: #2b6cb0; stroke-width: 2; }
svg .dot { fill: #2b6cb0; stroke: #2b6cb0; stroke-width: 2; }
svg .flagged .dot { fill: #fff; }
svg .tier .whisker { stroke: #b7791f; }
svg .tier .dot { fill: #b7791f; stroke: #b7791f; }
svg .band { fill: #fdf0cf; }
svg .tierline { stroke: #d69e2e; stroke-dasharray: 4 3; }
.legend { display: flex; flex-wrap: wrap; gap: 18px; margin: 8px 0 18px; color: #3c4650; font-size: 14px; }
.legend span.key { display: inline-block; width: 14px; height: 14px; border-radius: 3px; vertical-align: -2px; margin-right: 6px; border: 1px solid #c9ced6; }
.key.tier { background: #fdf0cf; }
.key.tied { background: #fff; text-align: center; line-height: 13px; font-weight: 700; font-size: 12px; }
.key.flagged { background: #fff; border-color: #2b6cb0; border-width: 2px; border-radius: 50%; }
table { border-collapse: collapse; width: 100%; background: #fff; border: 1px solid #d9dee4; }
th, td { padding: 6px 10px; border-bottom: 1px solid #e7eaee; text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.tier td { background: #fdf0cf; }
tr.tier td.entry { font-weight: 700; }
tr.flagged td.status { color: #9c4221; }
td.rank { font-weight: 700; }
.reason { font-weight: 400; color: #59636e; font-size: 13px; }
td.entry { word-break: break-all; }
td.date { white-space: nowrap; }
)";

// The horizontal axis of the plot: a log scale when the times span more than a factor of 10.
struct Axis {
  bool log = false;
  double min = 0, max = 1;
  std::vector<double> ticks;

  double fraction(double v) const {
    if (log) return (std::log10(std::max(v, min)) - std::log10(min)) / (std::log10(max) - std::log10(min));
    return (v - min) / (max - min);
  }
};

Axis make_axis(double lo, double hi) {
  Axis a;
  if (!(hi > lo)) {  // one value (or none): a window around it
    const double pad = lo > 0 ? lo * 0.1 : 1;
    lo -= pad;
    hi += pad;
  }
  if (lo > 0 && hi / lo > 10) {
    a.log = true;
    const int first = static_cast<int>(std::floor(std::log10(lo))), last = static_cast<int>(std::ceil(std::log10(hi)));
    a.min = std::pow(10.0, first);
    a.max = std::pow(10.0, last);
    const bool fine = last - first <= 3;  // 1-2-5 ticks while they fit, decades beyond
    for (int d = first; d <= last; ++d)
      for (double m : {1.0, 2.0, 5.0})
        if ((m == 1.0 || fine) && m * std::pow(10.0, d) <= a.max * 1.0001) a.ticks.push_back(m * std::pow(10.0, d));
    return a;
  }
  // Linear: about five ticks at 1, 2 or 5 times a power of ten.
  const double raw = (hi - lo) / 5;
  const double p = std::pow(10.0, std::floor(std::log10(raw)));
  const double step = raw / p < 1.5 ? p : raw / p < 3.5 ? 2 * p : raw / p < 7.5 ? 5 * p : 10 * p;
  a.min = std::floor(lo / step) * step;
  a.max = std::ceil(hi / step) * step;
  if (lo >= 0 && a.min < 0) a.min = 0;
  for (double v = a.min; v <= a.max + step / 2; v += step) a.ticks.push_back(std::abs(v) < step / 1e6 ? 0 : v);
  return a;
}

std::string svg_plot(const Board& b) {
  const double W = 960, left = 230, right = 24, top = 14, row_h = 24, bottom = 46;
  const double H = top + row_h * std::max<std::size_t>(b.rows.size(), 1) + bottom;
  std::string s = fmt::format(
      "<svg id=\"plot\" viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"Median time per entry with its interval\">\n",
      W, H);
  if (b.rows.empty()) {
    s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">No valid entries yet.</text>\n</svg>\n", W / 2,
                     top + row_h / 2 + 4);
    return s;
  }
  double lo = std::numeric_limits<double>::infinity(), hi = 0;
  for (const auto& r : b.rows) {
    lo = std::min(lo, lower(r));
    hi = std::max(hi, upper(r));
  }
  const Axis axis = make_axis(lo, hi);
  const double plot_w = W - left - right, plot_bottom = top + row_h * b.rows.size();
  const auto x = [&](double v) { return left + plot_w * std::clamp(axis.fraction(v), 0.0, 1.0); };

  // Bands behind the tier rows, then the grid, then the rows on top.
  for (std::size_t i = 0; i < b.rows.size(); ++i)
    if (b.rows[i].timing.tier)
      s += fmt::format("<rect class=\"band\" x=\"0\" y=\"{:.1f}\" width=\"{}\" height=\"{}\"/>\n", top + row_h * i, W,
                       row_h);
  s += "<g class=\"axis\">\n";
  for (double t : axis.ticks) {
    s += fmt::format("<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>", x(t), top,
                     plot_bottom);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x(t), plot_bottom + 16,
                     ms(t));
  }
  s += fmt::format(
      "<text x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">median time per call (ms), {} scale; "
      "whiskers: ~95% interval</text>\n</g>\n",
      left + plot_w / 2, plot_bottom + 36, axis.log ? "log" : "linear");
  for (const auto& r : b.rows)
    if (r.timing.tier)
      s += fmt::format("<line class=\"tierline\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2:.1f}\"/>\n",
                       x(r.timing.median_ms), top, plot_bottom);
  for (std::size_t i = 0; i < b.rows.size(); ++i) {
    const auto& r = b.rows[i];
    const auto& t = r.timing;
    const double y = top + row_h * i + row_h / 2;
    std::string cls = "row";
    if (t.tier) cls += " tier";
    if (t.status == "flagged") cls += " flagged";
    s += fmt::format("<g class=\"{}\"><title>{}: {} ms [{}, {}]</title>", cls, esc(t.entry), ms(t.median_ms),
                     ms(t.low_ms), ms(t.high_ms));
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{} {}</text>", left - 10, y + 4,
                     esc(rank_label(r)), esc(clip(t.entry, 28)));
    const double x0 = x(lower(r)), x1 = x(upper(r));
    s +=
        fmt::format("<line class=\"whisker\" x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\"/>", x0, x1, y);
    for (double xe : {x0, x1})
      s += fmt::format("<line class=\"whisker\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>", xe,
                       y - 5, y + 5);
    s += fmt::format("<circle class=\"dot\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"4.5\"/></g>\n", x(t.median_ms), y);
  }
  return s + "</svg>\n";
}

std::string board_table(const Board& b) {
  std::string s =
      "<table id=\"board\">\n<thead><tr><th>rank</th><th>entry</th><th>median (ms)</th><th>interval (ms)</th>"
      "<th>CV</th><th>date</th><th>GPU</th><th>status</th></tr></thead>\n<tbody>\n";
  if (b.rows.empty()) s += "<tr><td colspan=\"8\">No valid entries yet.</td></tr>\n";
  for (const auto& r : b.rows) {
    const auto& t = r.timing;
    std::string cls = t.tier ? "tier" : "student";
    if (r.tied) cls += " tied";
    if (t.status == "flagged") cls += " flagged";
    std::string status = esc(t.status);
    if (!t.reason.empty()) status += "<div class=\"reason\">" + esc(t.reason) + "</div>";
    s += fmt::format(
        "<tr class=\"{}\"><td class=\"rank\">{}</td><td class=\"entry\">{}</td><td class=\"num\">{}</td>"
        "<td class=\"num\">{} &ndash; {}</td><td class=\"num\">{}</td><td class=\"date\" "
        "title=\"{}\">{}</td><td>{}</td>"
        "<td class=\"status\">{}</td></tr>\n",
        cls, esc(rank_label(r)), esc(t.entry), ms(t.median_ms), ms(t.low_ms), ms(t.high_ms), percent(t.cv), esc(r.date),
        esc(short_date(r.date)), esc(gpu_label(r)), status);
  }
  return s + "</tbody>\n</table>\n";
}

std::string invalid_table(const Board& b) {
  std::string s =
      "<table id=\"invalid\">\n<thead><tr><th>entry</th><th>date</th><th>GPU</th><th>reason</th></tr>"
      "</thead>\n<tbody>\n";
  if (b.invalid.empty()) s += "<tr><td colspan=\"4\">None.</td></tr>\n";
  for (const auto& r : b.invalid)
    s += fmt::format(
        "<tr><td class=\"entry\">{}</td><td class=\"date\" title=\"{}\">{}</td><td>{}</td><td>{}</td></tr>\n",
        esc(r.timing.entry), esc(r.date), esc(short_date(r.date)), esc(gpu_label(r)), esc(r.timing.reason));
  return s + "</tbody>\n</table>\n";
}

}  // namespace

std::string to_html(const Board& b) {
  const std::string title = "Leaderboard: " + b.lab + " / " + b.exercise;
  std::string h =
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  h += "<title>" + esc(title) + "</title>\n<style>" + kStyle + "</style>\n</head>\n<body>\n<main>\n";
  h += "<h1>" + esc(title) + "</h1>\n<p class=\"meta\">";
  if (!b.generated_at.empty()) h += "Generated " + esc(b.generated_at) + ". ";
  h += "Times are medians per call, with an interval of about 95%. Rows whose intervals overlap, or whose "
       "medians are less than 1% apart, are tied: that run cannot order them. CV is robust (the interquartile "
       "range over 1.349 medians): one stray call does not move it.</p>\n";
  h += "<figure>\n" + svg_plot(b) + "</figure>\n";
  h += "<div class=\"legend\"><span><span class=\"key tier\"></span>reference tier (solutions/)</span>"
       "<span><span class=\"key tied\">=</span>tied: the intervals overlap, or the medians are within 1%</span>"
       "<span><span class=\"key flagged\"></span>flagged: timing still noisy after a re-run</span></div>\n";
  h += board_table(b);
  h += "<h2>Invalid entries</h2>\n" + invalid_table(b);
  return h + "</main>\n</body>\n</html>\n";
}

}  // namespace grader::leaderboard
