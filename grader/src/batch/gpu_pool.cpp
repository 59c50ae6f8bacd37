#include "batch/gpu_pool.hpp"

#include <algorithm>
#include <chrono>
#include <sstream>
#include <stdexcept>

namespace grader {

namespace {

std::vector<std::string> split(const std::string& text, char sep) {
  std::vector<std::string> parts;
  std::stringstream in(text);
  for (std::string part; std::getline(in, part, sep);) {
    part.erase(0, part.find_first_not_of(" \t"));
    part.erase(part.find_last_not_of(" \t") + 1);
    parts.push_back(part);
  }
  return parts;
}

int ordinal_of(const std::string& word, const std::string& spec) {
  std::size_t used = 0;
  int n = -1;
  try {
    n = std::stoi(word, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (word.empty() || used != word.size() || n < 0)
    throw std::invalid_argument("--gpus " + spec + ": '" + word +
                                "' is not a GPU number (say \"all\", or e.g. 0,2 or 0-3)");
  return n;
}

}  // namespace

std::vector<GpuSlot> choose_gpus(const std::vector<GpuSlot>& visible, const std::string& spec) {
  if (spec.empty() || spec == "all") return visible;
  std::vector<int> wanted;
  for (const auto& term : split(spec, ',')) {
    const auto dash = term.find('-');
    const int first = ordinal_of(term.substr(0, dash), spec);
    const int last = dash == std::string::npos ? first : ordinal_of(term.substr(dash + 1), spec);
    for (int n = first; n <= last; ++n) wanted.push_back(n);
  }
  std::vector<GpuSlot> chosen;
  for (const int n : wanted) {
    const auto it = std::find_if(visible.begin(), visible.end(), [&](const GpuSlot& g) { return g.ordinal == n; });
    if (it == visible.end())
      throw std::invalid_argument("--gpus " + spec + ": there is no GPU " + std::to_string(n) + " here (" +
                                  std::to_string(visible.size()) + " visible: `grader devices` lists them)");
    if (std::none_of(chosen.begin(), chosen.end(), [&](const GpuSlot& g) { return g.ordinal == n; }))
      chosen.push_back(*it);
  }
  return chosen;
}

std::string child_visible_devices(const char* parent, int ordinal) {
  if (parent && *parent) {
    const auto entries = split(parent, ',');
    if (ordinal >= 0 && static_cast<std::size_t>(ordinal) < entries.size()) return entries[ordinal];
  }
  return std::to_string(ordinal);
}

int shared_phases_per_gpu(int gpus) { return std::clamp(16 / std::max(1, gpus), 2, 8); }

std::vector<std::string> gpu_models(const std::vector<GpuSlot>& gpus) {
  std::vector<std::string> models;
  for (const auto& g : gpus)
    if (std::find(models.begin(), models.end(), g.model) == models.end()) models.push_back(g.model);
  return models;
}

GpuPool::GpuPool(std::vector<GpuSlot> gpus, int max_shared, std::chrono::milliseconds max_defer)
    : gpus_(std::move(gpus)),
      max_shared_(std::max(1, max_shared)),
      max_defer_(max_defer),
      states_(gpus_.size()),
      holders_(gpus_.size()) {
  models_ = gpu_models(gpus_);
  assigned_.assign(models_.size(), 0);
}

bool GpuPool::Lease::shared_with_others() const {
  if (!pool || id < 0) return false;
  std::lock_guard<std::mutex> l(pool->m_);
  return pool->overlapped_[id];
}

bool GpuPool::admits_shared(int g, const std::string& model) const {
  const State& s = states_[g];
  return of_model(g, model) && !s.exclusive && !s.draining && s.shared < max_shared_;
}

// The header says when a GPU with timings waiting starts to drain.
void GpuPool::update_draining(int g) {
  State& s = states_[g];
  if (s.reserved == 0 || s.draining) return;
  s.draining = s.reserved >= max_shared_ || waiting_shared_ == 0 || Clock::now() - s.since >= max_defer_;
}

void GpuPool::reserve(int g) {
  if (states_[g].reserved++ == 0) states_[g].since = Clock::now();
  update_draining(g);
}

void GpuPool::unreserve(int g) {
  if (--states_[g].reserved == 0) states_[g].draining = false;
}

int GpuPool::pick_shared(const std::string& model) const {
  int best = -1;
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g)
    if (admits_shared(g, model) && (best < 0 || states_[g].shared < states_[best].shared)) best = g;
  return best;
}

int GpuPool::pick_reservation(const std::string& model) const {
  // The GPU that frees soonest: no timing on it or waiting for it, then the fewest phases on it.
  int best = -1;
  const auto load = [&](int g) {
    return (states_[g].exclusive ? 1000 : 0) + (states_[g].reserved + states_[g].starting) * 1000 + states_[g].shared;
  };
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g)
    if (of_model(g, model) && (best < 0 || load(g) < load(best))) best = g;
  return best;
}

void GpuPool::mark_overlaps(int g, int lease_id) {
  if (!holders_[g].empty()) overlapped_[lease_id] = true;
  for (const int other : holders_[g]) overlapped_[other] = true;
  holders_[g].push_back(lease_id);
}

GpuPool::Lease GpuPool::new_lease(bool exclusive) {
  Lease lease;
  lease.exclusive = exclusive;
  lease.pool = this;
  lease.id = next_id_++;
  overlapped_.push_back(false);
  return lease;
}

int GpuPool::wait_exclusive(std::unique_lock<std::mutex>& l, int g, const std::string& model, bool may_move,
                            const std::atomic<bool>* cancel) {
  const auto ready = [&] {
    update_draining(g);
    if (idle(g)) return true;
    // Another GPU of the model came free with no one waiting for it: move there.
    for (int other = 0; may_move && other < static_cast<int>(gpus_.size()); ++other)
      if (other != g && of_model(other, model) && idle(other) && states_[other].reserved == 0) {
        unreserve(g);
        reserve(other);
        g = other;
        cv_.notify_all();  // the GPU left may admit phases again
        return true;
      }
    return false;
  };
  const auto cancelled = [&] { return cancel && cancel->load(); };
  // Woken by every release; the periodic wake notices max_defer passing.
  while (!cancelled() && !ready())
    cv_.wait_for(l, std::min<std::chrono::milliseconds>(max_defer_, std::chrono::milliseconds(500)));
  unreserve(g);
  if (cancelled()) {  // the process ended: the GPU is for no one
    cv_.notify_all();
    return -1;
  }
  states_[g].exclusive = true;
  return g;
}

GpuPool::Lease GpuPool::acquire(const std::string& model, bool exclusive) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> l(m_);
  if (pick_reservation(model) < 0) throw std::logic_error("no GPU of model " + model + " in the pool");
  Lease lease = new_lease(exclusive);
  if (!exclusive) {
    if ((lease.gpu = pick_shared(model)) < 0) {
      ++waiting_shared_;
      cv_.wait(l, [&] { return (lease.gpu = pick_shared(model)) >= 0; });
      --waiting_shared_;
    }
    ++states_[lease.gpu].shared;
    cv_.notify_all();  // a GPU drained for timings admits starts again while it has phases
  } else {
    const int g = pick_reservation(model);
    reserve(g);
    lease.gpu = wait_exclusive(l, g, model, true);
  }
  mark_overlaps(lease.gpu, lease.id);
  lease.waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return lease;
}

bool GpuPool::admits_start(int g, const std::string& model) const {
  const State& s = states_[g];
  return of_model(g, model) && !s.exclusive && !(s.reserved > 0 && s.shared == 0) &&
         s.starting + s.reserved < max_shared_;
}

int GpuPool::pick_start(const std::string& model) const {
  int best = -1;
  const auto load = [&](int g) { return states_[g].reserved * 1000 + states_[g].starting * 100 + states_[g].shared; };
  for (int g = 0; g < static_cast<int>(gpus_.size()); ++g)
    if (admits_start(g, model) && (best < 0 || load(g) < load(best))) best = g;
  return best;
}

int GpuPool::start_gated(const std::string& model) {
  std::unique_lock<std::mutex> l(m_);
  if (pick_reservation(model) < 0) throw std::logic_error("no GPU of model " + model + " in the pool");
  int g = -1;
  cv_.wait(l, [&] { return (g = pick_start(model)) >= 0; });
  ++states_[g].starting;
  return g;
}

GpuPool::Lease GpuPool::acquire_gated(int gpu, const std::atomic<bool>* cancel) {
  const auto t0 = std::chrono::steady_clock::now();
  std::unique_lock<std::mutex> l(m_);
  --states_[gpu].starting;
  reserve(gpu);
  Lease lease = new_lease(true);
  lease.gpu = wait_exclusive(l, gpu, gpus_[gpu].model, false, cancel);
  if (lease.gpu >= 0) mark_overlaps(lease.gpu, lease.id);
  lease.waited_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return lease;
}

void GpuPool::end_gated_start(int gpu) {
  std::lock_guard<std::mutex> l(m_);
  --states_[gpu].starting;
  cv_.notify_all();
}

void GpuPool::wake() {
  std::lock_guard<std::mutex> l(m_);
  cv_.notify_all();
}

void GpuPool::release(const Lease& lease) {
  std::lock_guard<std::mutex> l(m_);
  State& s = states_[lease.gpu];
  if (lease.exclusive)
    s.exclusive = false;
  else
    --s.shared;
  for (int g = 0; g < static_cast<int>(states_.size()); ++g) update_draining(g);
  auto& h = holders_[lease.gpu];
  h.erase(std::remove(h.begin(), h.end(), lease.id), h.end());
  cv_.notify_all();
}

std::string GpuPool::assign_model() {
  std::lock_guard<std::mutex> l(m_);
  if (models_.empty()) return "";
  std::size_t best = 0;
  double best_load = 0;
  for (std::size_t m = 0; m < models_.size(); ++m) {
    int gpus = 0, work = assigned_[m];
    for (std::size_t g = 0; g < gpus_.size(); ++g)
      if (gpus_[g].model == models_[m]) ++gpus;
    const double load = static_cast<double>(work) / gpus;
    if (m == 0 || load < best_load) best = m, best_load = load;
  }
  ++assigned_[best];
  return models_[best];
}

void GpuPool::finish_model(const std::string& model) {
  std::lock_guard<std::mutex> l(m_);
  for (std::size_t m = 0; m < models_.size(); ++m)
    if (models_[m] == model && assigned_[m] > 0) --assigned_[m];
}

int GpuPool::waiting_shared() const {
  std::lock_guard<std::mutex> l(m_);
  return waiting_shared_;
}

std::vector<int> GpuPool::busy() const {
  std::lock_guard<std::mutex> l(m_);
  std::vector<int> out;
  for (const auto& s : states_) out.push_back(s.exclusive ? 1 : s.shared);
  return out;
}

}  // namespace grader
