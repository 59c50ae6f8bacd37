#include "grader/catch.hpp"
#include "grader/leaderboard.hpp"

#include <sstream>
#include <string>
#include <vector>

using namespace grader::leaderboard;

namespace {

BoardRow row(const std::string& entry, double median, double low, double high, bool tier = false,
             const std::string& status = "valid") {
  BoardRow r;
  r.timing.entry = entry;
  r.timing.tier = tier;
  r.timing.status = status;
  r.timing.median_ms = median;
  r.timing.low_ms = low;
  r.timing.high_ms = high;
  r.timing.cv = 0.004;
  r.timing.samples = 20;
  r.date = "2025-05-01T14:03:59Z";
  r.gpu = "NVIDIA H100 80GB HBM3";
  r.gpu_clock_mhz = 1980;
  r.run_id = 1;
  return r;
}

std::vector<std::string> lines(const std::string& text) {
  std::stringstream in(text);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const char* kHostile = "<img src=x onerror=alert(1)>";

// A board with everything a renderer must show: tiers, a tie, a flagged and an invalid entry.
Board demo_board() {
  Board b;
  b.lab = "matmul-tiled";
  b.exercise = "tiled";
  b.generated_at = "2025-05-02T09:00:00Z";
  b.rows = {row("alice", 1.00, 0.99, 1.01), row("Ref1", 1.50, 1.49, 1.51, true), row("bob, jr", 2.00, 1.98, 2.03),
            row(kHostile, 2.02, 2.00, 2.05), row("carol", 4.00, 3.90, 4.10, false, "flagged")};
  b.rows.back().timing.reason = "CV 3.1% after a re-run (target 1%)";
  BoardRow bad = row("dave", 0, 0, 0, false, "invalid");
  bad.timing.reason = "output cached from an earlier call";
  b.invalid = {bad};
  rank_rows(b.rows);
  return b;
}

}  // namespace

TEST_CASE("rank_rows: sorted by median, separate intervals get ranks 1, 2, 3", "[leaderboard]") {
  std::vector<BoardRow> rows = {row("c", 3, 2.9, 3.1), row("a", 1, 0.9, 1.1), row("b", 2, 1.9, 2.1)};
  rank_rows(rows);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0].timing.entry == "a");
  CHECK(rows[1].timing.entry == "b");
  CHECK(rows[2].timing.entry == "c");
  for (int i = 0; i < 3; ++i) {
    CHECK(rows[i].rank == i + 1);
    CHECK_FALSE(rows[i].tied);
  }
}

TEST_CASE("rank_rows: overlapping intervals share a rank, both ends of a tie marked", "[leaderboard]") {
  std::vector<BoardRow> rows = {row("a", 1.0, 0.9, 1.1), row("b", 1.05, 1.0, 1.2), row("c", 2, 1.9, 2.1)};
  rank_rows(rows);
  CHECK(rows[0].rank == 1);
  CHECK(rows[0].tied);
  CHECK(rows[1].rank == 1);
  CHECK(rows[1].tied);
  CHECK(rows[2].rank == 3);  // two rows ahead of it
  CHECK_FALSE(rows[2].tied);
}

TEST_CASE("rank_rows: a chain of overlaps is one group", "[leaderboard]") {
  // a overlaps b, b overlaps c, a does not overlap c: still one group.
  std::vector<BoardRow> rows = {row("a", 1.0, 0.95, 1.06), row("b", 1.1, 1.05, 1.16), row("c", 1.2, 1.15, 1.25),
                                row("d", 1.5, 1.45, 1.55)};
  rank_rows(rows);
  for (int i = 0; i < 3; ++i) {
    CHECK(rows[i].rank == 1);
    CHECK(rows[i].tied);
  }
  CHECK(rows[3].rank == 4);
  CHECK_FALSE(rows[3].tied);
}

TEST_CASE("rank_rows: equal medians tie even without intervals", "[leaderboard]") {
  std::vector<BoardRow> rows = {row("b", 2, 0, 0), row("a", 2, 0, 0), row("c", 3, 0, 0)};
  rank_rows(rows);
  CHECK(rows[0].timing.entry == "a");  // equal medians: by name, so the order is stable
  CHECK(rows[0].tied);
  CHECK(rows[1].tied);
  CHECK(rows[0].rank == 1);
  CHECK(rows[1].rank == 1);
  CHECK(rows[2].rank == 3);
  CHECK_FALSE(rows[2].tied);  // no interval: the median alone, which overlaps nothing
}

TEST_CASE("rank_rows: one row, and none", "[leaderboard]") {
  std::vector<BoardRow> one = {row("solo", 1, 0.9, 1.1)};
  rank_rows(one);
  CHECK(one[0].rank == 1);
  CHECK_FALSE(one[0].tied);
  std::vector<BoardRow> none;
  rank_rows(none);
  CHECK(none.empty());
}

TEST_CASE("rank_rows: tiers are placed and can tie, but take no rank", "[leaderboard]") {
  std::vector<BoardRow> rows = {row("Ref2", 0.5, 0.49, 0.51, true), row("a", 1, 0.99, 1.01),
                                row("Ref1", 1.005, 1.0, 1.02, true), row("b", 2, 1.99, 2.01)};
  rank_rows(rows);
  CHECK(rows[0].timing.entry == "Ref2");
  CHECK(rows[0].rank == 0);
  CHECK(rows[1].timing.entry == "a");
  CHECK(rows[1].rank == 1);
  CHECK(rows[1].tied);  // with Ref1
  CHECK(rows[2].rank == 0);
  CHECK(rows[2].tied);
  CHECK(rows[3].rank == 2);  // the second student
}

TEST_CASE("to_markdown: a table with a stable header, tiers in bold, ids escaped", "[leaderboard]") {
  const std::string md = to_markdown(demo_board());
  CHECK(contains(md, "# Leaderboard: matmul-tiled / tiled"));
  CHECK(contains(md, "| rank | entry | median (ms) | interval (ms) | CV | date | GPU | status |"));
  CHECK(contains(
      md, "| 1 | alice | 1 | [0.99, 1.01] | 0.40% | 2025-05-01 14:03 | NVIDIA H100 80GB HBM3, 1980 MHz | valid |"));
  CHECK(contains(md, "| ref | **Ref1** |"));
  CHECK(contains(md, "| 2= | bob, jr |"));
  CHECK(contains(md, "flagged: CV 3.1% after a re-run (target 1%)"));
  CHECK(contains(md, "\\<img src=x onerror=alert(1)\\>"));
  CHECK_FALSE(contains(md, kHostile));
  CHECK(contains(md, "## Invalid entries"));
  CHECK(contains(md, "| dave |"));
  CHECK(contains(md, "output cached from an earlier call"));
}

TEST_CASE("to_markdown: a board with no rows says so", "[leaderboard]") {
  Board b;
  b.lab = "kmeans";
  b.exercise = "all_gpu";
  const std::string md = to_markdown(b);
  CHECK(contains(md, "No valid entries yet."));
  CHECK_FALSE(contains(md, "## Invalid entries"));
}

TEST_CASE("to_markdown: a pipe in an id does not open a new cell", "[leaderboard]") {
  Board b;
  b.rows = {row("a|b", 1, 0.9, 1.1)};
  rank_rows(b.rows);
  CHECK(contains(to_markdown(b), "| a\\|b |"));
}

TEST_CASE("to_csv: stable header, ranked rows then invalid ones, ids quoted", "[leaderboard]") {
  const auto l = lines(to_csv(demo_board()));
  REQUIRE(l.size() == 7);
  CHECK(l[0] == "rank,tied,entry,tier,status,median_ms,low_ms,high_ms,cv,samples,date,gpu,gpu_clock_mhz,reason");
  CHECK(l[1] == "1,false,alice,false,valid,1,0.99,1.01,0.004,20,2025-05-01T14:03:59Z,NVIDIA H100 80GB HBM3,1980,");
  CHECK(l[2].rfind(",false,Ref1,true,valid,1.5,", 0) == 0);  // a tier has no rank
  CHECK(l[3].rfind("2,true,\"bob, jr\",false,valid,2,", 0) == 0);
  CHECK(l[5].rfind("4,false,carol,false,flagged,", 0) == 0);
  CHECK(contains(l[5], ",CV 3.1% after a re-run (target 1%)"));
  CHECK(l[6].rfind(",false,dave,false,invalid,", 0) == 0);
  CHECK(contains(l[6], ",output cached from an earlier call"));
}

TEST_CASE("to_json: every field of every row", "[leaderboard]") {
  const auto j = to_json(demo_board());
  CHECK(j.at("lab") == "matmul-tiled");
  CHECK(j.at("exercise") == "tiled");
  CHECK(j.at("generated_at") == "2025-05-02T09:00:00Z");
  REQUIRE(j.at("rows").size() == 5);
  const auto& first = j.at("rows")[0];
  CHECK(first.at("rank") == 1);
  CHECK(first.at("tied") == false);
  CHECK(first.at("entry") == "alice");
  CHECK(first.at("tier") == false);
  CHECK(first.at("status") == "valid");
  CHECK(first.at("reason") == "");
  CHECK(first.at("median_ms") == 1.0);
  CHECK(first.at("low_ms") == 0.99);
  CHECK(first.at("high_ms") == 1.01);
  CHECK(first.at("cv") == 0.004);
  CHECK(first.at("samples") == 20);
  CHECK(first.at("date") == "2025-05-01T14:03:59Z");
  CHECK(first.at("gpu") == "NVIDIA H100 80GB HBM3");
  CHECK(first.at("gpu_clock_mhz") == 1980);
  CHECK(first.at("run_id") == 1);
  CHECK(j.at("rows")[1].at("tier") == true);
  CHECK(j.at("rows")[3].at("entry") == kHostile);  // JSON carries the id as it is
  REQUIRE(j.at("invalid").size() == 1);
  CHECK(j.at("invalid")[0].at("reason") == "output cached from an earlier call");
}

TEST_CASE("to_html: one page, the ids a test finds, nothing external, hostile ids escaped", "[leaderboard]") {
  const std::string html = to_html(demo_board());
  CHECK(html.rfind("<!DOCTYPE html>", 0) == 0);
  CHECK(contains(html, "id=\"board\""));
  CHECK(contains(html, "id=\"plot\""));
  CHECK(contains(html, "id=\"invalid\""));
  CHECK(contains(html, "<style>"));
  CHECK(contains(html, "<svg"));
  CHECK(contains(html, "<tr class=\"tier\">"));
  CHECK(contains(html, "<tr class=\"student tied\">"));
  CHECK(contains(html, "flagged"));
  CHECK(contains(html, "output cached from an earlier call"));
  CHECK(contains(html, "reference tier"));  // the legend
  CHECK(contains(html, "&lt;img src&#61;x onerror&#61;alert(1)&gt;"));
  CHECK_FALSE(contains(html, "<img"));
  CHECK_FALSE(contains(html, "onerror="));
  for (const char* external : {"http", "src=", "<link", "url(", "<script", "@import", "@font-face"}) {
    INFO(external);
    CHECK_FALSE(contains(html, external));
  }
}

TEST_CASE("to_html: an empty board still has its elements", "[leaderboard]") {
  Board b;
  b.lab = "kmeans";
  b.exercise = "all_gpu";
  const std::string html = to_html(b);
  CHECK(contains(html, "id=\"board\""));
  CHECK(contains(html, "id=\"plot\""));
  CHECK(contains(html, "id=\"invalid\""));
  CHECK(contains(html, "No valid entries yet."));
}

TEST_CASE("to_html: times over more than a decade get a log axis", "[leaderboard]") {
  Board b;
  b.rows = {row("fast", 0.05, 0.049, 0.051), row("slow", 20, 19, 21)};
  rank_rows(b.rows);
  const std::string log = to_html(b);
  CHECK(contains(log, "log scale"));
  CHECK(contains(log, ">0.1</text>"));
  CHECK(contains(log, ">10</text>"));
  b.rows = {row("a", 1.0, 0.98, 1.02), row("b", 1.5, 1.45, 1.55)};
  rank_rows(b.rows);
  CHECK(contains(to_html(b), "linear scale"));
}

TEST_CASE("rank_rows: medians less than 1% apart tie even with tight intervals", "[leaderboard]") {
  // Two copies of the reference on an H100: 1.867 [1.864, 1.868] and 1.871 [1.868, 1.877] ms
  // (0.2% apart); a copy 3% slower is ordered after them.
  std::vector<BoardRow> rows = {row("copy-b", 1.867, 1.864, 1.8679), row("copy-a", 1.871, 1.8681, 1.877),
                                row("slower", 1.93, 1.928, 1.932)};
  rank_rows(rows);
  CHECK(rows[0].tied);
  CHECK(rows[1].tied);
  CHECK(rows[0].rank == 1);
  CHECK(rows[1].rank == 1);
  CHECK(rows[2].timing.entry == "slower");
  CHECK(rows[2].rank == 3);
  CHECK_FALSE(rows[2].tied);
}
