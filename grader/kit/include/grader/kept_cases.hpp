// KeptCases<Case, Key>: a test program's case buffers kept from one case to the next.
//
// A case of a lab's tests (the inputs the call sees, the grader's own copies, the expected
// output) was allocated when the case began and freed when it ended. Allocating and freeing GPU
// memory are calls into the driver, and the driver serializes them across every GPU of the node:
// with 16 test programs on four H200s, a 4 MiB cudaMalloc took 3 ms instead of 0.1 ms, and the
// class's correctness cases spent more time allocating than calling (2026-11-28). A shape comes
// back in every draw and every exercise, so a case of that shape is kept and used again.
//
// What a Case must guarantee for that: its draw() makes every buffer new (the inputs drawn
// again, what the call sees poisoned, its guards included), so a kept case carries nothing from
// one use to the next. A buffer the call sees was shared with the submission from the start; the
// grader's own buffers never are, in whichever case they serve.
//
// Cases are kept up to max_bytes (the most recently used first; the oldest dropped), counted as
// the GPU memory they take (workbook::allocated_bytes: IPC gives each buffer whole 2 MiB blocks).
// One case larger than that is still kept, alone: a timed phase measures several kernels on one
// large shape. Not thread-safe: a test program's cases run on one thread.
#pragma once

#include <algorithm>
#include <list>
#include <memory>
#include <utility>

namespace grading {

template <class Case, class Key>
class KeptCases {
public:
  explicit KeptCases(double max_bytes) : max_bytes_(max_bytes) {}

  // The case of `key`, made by make() (which returns a std::unique_ptr<Case>) when none is kept.
  // `bytes` is what a case of that key holds.
  template <class Make>
  Case& get(const Key& key, double bytes, Make&& make) {
    const auto it = std::find_if(kept_.begin(), kept_.end(), [&](const Kept& k) { return k.key == key; });
    if (it != kept_.end()) {
      kept_.splice(kept_.begin(), kept_, it);
      return *kept_.front().value;
    }
    double total = bytes;
    for (const Kept& k : kept_) total += k.bytes;
    while (!kept_.empty() && total > max_bytes_) {
      total -= kept_.back().bytes;
      kept_.pop_back();  // freed before the new case allocates
    }
    kept_.push_front({key, bytes, std::forward<Make>(make)()});
    return *kept_.front().value;
  }

  std::size_t size() const { return kept_.size(); }

private:
  struct Kept {
    Key key;
    double bytes;
    std::unique_ptr<Case> value;
  };
  double max_bytes_;
  std::list<Kept> kept_;
};

}  // namespace grading
