// grading::KeptCases: a case made once per key, used again, the oldest dropped past the cap.
#include "grader/catch.hpp"
#include "grader/kept_cases.hpp"
#include "workbook/device_buffer.hpp"
#include "workbook/guarded_buffer.hpp"

#include <memory>
#include <string>
#include <vector>

namespace {

struct Counted {
  explicit Counted(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {
    log_.push_back("make " + name_);
  }
  ~Counted() { log_.push_back("free " + name_); }
  std::vector<std::string>& log_;
  std::string name_;
};

// make(key) for KeptCases::get: a Counted named by its key, logged in `log`.
auto maker(std::vector<std::string>& log) {
  return [&log](int key) { return [&log, key] { return std::make_unique<Counted>(log, std::to_string(key)); }; };
}

}  // namespace

TEST_CASE("KeptCases makes a case once per key and returns the same one after", "[kept]") {
  std::vector<std::string> log;
  grading::KeptCases<Counted, int> kept(100);
  const auto make = maker(log);
  Counted& a = kept.get(1, 10, make(1));
  Counted& b = kept.get(2, 10, make(2));
  CHECK(&kept.get(1, 10, make(1)) == &a);
  CHECK(&kept.get(2, 10, make(2)) == &b);
  CHECK(log == std::vector<std::string>{"make 1", "make 2"});
  CHECK(kept.size() == 2);
}

TEST_CASE("KeptCases frees the least recently used first, before making the new case", "[kept]") {
  std::vector<std::string> log;
  grading::KeptCases<Counted, int> kept(25);
  const auto make = maker(log);
  kept.get(1, 10, make(1));
  kept.get(2, 10, make(2));
  kept.get(1, 10, make(1));  // 1 is now the most recent: 2 goes first
  kept.get(3, 10, make(3));
  CHECK(log == std::vector<std::string>{"make 1", "make 2", "free 2", "make 3"});
  CHECK(kept.size() == 2);
}

TEST_CASE("KeptCases keeps one case larger than its cap, alone", "[kept]") {
  std::vector<std::string> log;
  grading::KeptCases<Counted, int> kept(25);
  const auto make = maker(log);
  kept.get(1, 10, make(1));
  Counted& big = kept.get(9, 100, make(9));
  CHECK(kept.size() == 1);
  CHECK(&kept.get(9, 100, make(9)) == &big);
  CHECK(log == std::vector<std::string>{"make 1", "free 1", "make 9"});
}

TEST_CASE("A kept case is counted as the GPU memory its buffers take", "[kept]") {
  workbook::use_whole_blocks(true);
  CHECK(workbook::allocated_bytes(4) == (2u << 20));
  CHECK(workbook::allocated_bytes((2u << 20) + 1) == (4u << 20));
  CHECK(workbook::GuardedBuffer<float>::allocated_bytes(1) == (2u << 20));  // 8 KiB of guards and one float
  workbook::use_whole_blocks(false);
  CHECK(workbook::allocated_bytes(4) == 4);
  CHECK(workbook::GuardedBuffer<float>::allocated_bytes(1) == 8192 + 4);
}
