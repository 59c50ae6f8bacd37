// The leaderboard's rules for one timed call (workbook::judge_call), on measured numbers: no GPU
// needed. What each cheat looks like in them is described in common/include/workbook/contest.hpp.
#include "grader/catch.hpp"
#include "workbook/contest.hpp"
#include "workbook/timer.hpp"

#include <string>
#include <vector>

using workbook::CallMeasure;
using workbook::ContestOptions;
using workbook::judge_call;

namespace {
// An honest 0.4 ms kernel: a little launch and wake-up time on the host, hardly any CPU.
CallMeasure honest() {
  CallMeasure m;
  m.event_ms = 0.40;
  m.host_ms = 0.45;
  m.cpu_ms = 0.03;
  m.threads_before = m.threads_after = 4;
  return m;
}
}  // namespace

TEST_CASE("an honest call counts", "[contest]") {
  CHECK(judge_call(honest(), {}).empty());
  auto tiny = honest();  // a 5 microsecond kernel: launch costs dominate, still honest
  tiny.event_ms = 0.005;
  tiny.host_ms = 0.05;
  CHECK(judge_call(tiny, {}).empty());
}

TEST_CASE("a wrong output never counts, whatever its time", "[contest]") {
  auto m = honest();
  m.wrong = "C[0][0]: expected 3, got 2";
  CHECK(judge_call(m, {}) == "wrong result: C[0][0]: expected 3, got 2");
}

TEST_CASE("work on another stream: the device is busy long after the timed stream is done", "[contest]") {
  auto m = honest();
  m.event_ms = 0.004;  // the given stream saw only the return
  m.host_ms = 0.41;    // the device-wide synchronize waited for the real work
  const auto why = judge_call(m, {});
  CHECK(why.find("another stream") != std::string::npos);
}

TEST_CASE("results computed on the host: CPU time during the call", "[contest]") {
  auto m = honest();
  m.host_ms = 900;
  m.cpu_ms = 880;
  const auto why = judge_call(m, {});
  CHECK(why.find("computed on the host") != std::string::npos);
}

TEST_CASE("a thread started by the submission", "[contest]") {
  auto m = honest();
  m.threads_after = 5;
  const auto why = judge_call(m, {});
  CHECK(why.find("starts threads") != std::string::npos);
  m.threads_before = 0;  // /proc unreadable: the rule cannot be applied, and is not
  CHECK(judge_call(m, {}).empty());
}

TEST_CASE("the slack is an option", "[contest]") {
  auto m = honest();
  m.host_ms = 0.9;  // 0.5 ms of host time beyond the events
  CHECK(judge_call(m, {}).empty() == false);
  ContestOptions loose;
  loose.host_slack_ms = 1.0;
  CHECK(judge_call(m, loose).empty());
}

TEST_CASE("a whole program is timed on the host: only the output and thread rules apply", "[contest]") {
  ContestOptions program;
  program.host_timed = true;
  auto m = honest();
  m.event_ms = 0;   // it launched nothing on the given stream
  m.host_ms = 2.0;  // allocations, copies, kernels on its own streams
  m.cpu_ms = 1.9;   // host work of its own
  CHECK(judge_call(m, program).empty());
  m.threads_after = 6;
  CHECK(judge_call(m, program).find("starts threads") != std::string::npos);
}

TEST_CASE("a call run in the runner process is timed from send to done: only the output and thread rules apply",
          "[contest]") {
  auto m = honest();
  m.foreign = true;
  m.event_ms = 1.2;  // from sending the call to seeing `done`: host work included
  m.host_ms = 0;     // not measured
  m.cpu_ms = 3.0;    // the runner's CUDA threads cost CPU time of their own
  CHECK(judge_call(m, ContestOptions{}).empty());
  m.wrong = "C[0][0]: expected 1, got 2";
  CHECK(judge_call(m, ContestOptions{}).find("wrong result") == 0);
  m.wrong.clear();
  m.threads_after = m.threads_before + 1;
  CHECK(judge_call(m, ContestOptions{}).find("starts threads") != std::string::npos);
}

// The tail of a call run in the runner: from the harness seeing `done` on the call's stream to the
// runner's reply, sent once its device is idle (workbook::escaped_work, timer.hpp).
TEST_CASE("work left running on another stream after a runner's call is refused; one late reply is not", "[contest]") {
  using workbook::escaped_work;
  // An honest 1.9 ms matmul: the reply comes 20-40 microseconds after `done`.
  const std::vector<double> calls(10, 1.9);
  std::vector<double> tails = {0.03, 0.02, 0.04, 0.03, 0.02, 0.03, 0.03, 0.02, 0.04, 0.03};
  CHECK(escaped_work(tails, calls).empty());
  // The runner descheduled for 3 ms once (other submissions building): the median is unmoved.
  tails[4] = 3.0;
  CHECK(escaped_work(tails, calls).empty());
  // A tiny call (an 0.08 ms transpose) has the same 0.1 ms floor for the reply's own cost.
  CHECK(escaped_work(std::vector<double>(10, 0.06), std::vector<double>(10, 0.08)).empty());
  // The product launched on a stream of the submission's own: `done` comes at once, the GPU works
  // for the whole product after it.
  const std::vector<double> escaped_calls(10, 0.01), escaped_tails(10, 1.9);
  const std::string why = escaped_work(escaped_tails, escaped_calls);
  CHECK(why.find("another stream") != std::string::npos);
  CHECK(why.find("1.900 ms") != std::string::npos);
  // Half the work escaped is still caught (the tail is above a quarter of the call).
  CHECK_FALSE(escaped_work(std::vector<double>(10, 0.9), std::vector<double>(10, 1.0)).empty());
  // Nothing measured, nothing judged.
  CHECK(escaped_work({}, {}).empty());
}

TEST_CASE("work left after a runner's call is charged to the call, all of it", "[contest]") {
  using workbook::charged_ms;
  using workbook::ForeignCall;
  ForeignCall honest;
  honest.device_ms = 0.27;
  honest.tail_ms = 0.003;  // from `done` to the device idle: both sides spin
  CHECK(charged_ms(honest) == Approx(0.273));
  // The last eighth of C's rows on a stream of its own: `done` at 0.236 ms, the GPU busy 0.034 ms
  // more (within the refusal rule's quarter of the call, and within the 0.05 ms once forgiven).
  // Charged, it is no faster than the honest call.
  ForeignCall eighth_escaped;
  eighth_escaped.device_ms = 0.236;
  eighth_escaped.tail_ms = 0.037;
  CHECK(workbook::escaped_work({0.037}, {0.236}).empty());
  CHECK(charged_ms(eighth_escaped) == Approx(charged_ms(honest)));
}

TEST_CASE("the leaderboard judges a runner's calls by their tails, together", "[contest]") {
  // time_contest's rule over its calls, as it applies it (the calls themselves need a GPU).
  std::vector<double> tails, times;
  for (int i = 0; i < 5; ++i) {
    auto m = honest();
    m.foreign = true;
    m.event_ms = 0.02;                               // `done` written at once
    m.tail_ms = 1.8;                                 // the product still running on a stream of its own
    CHECK(judge_call(m, ContestOptions{}).empty());  // each call alone looks fine ...
    tails.push_back(m.tail_ms);
    times.push_back(m.event_ms);
  }
  CHECK_FALSE(workbook::escaped_work(tails, times).empty());  // ... the calls together do not
}
