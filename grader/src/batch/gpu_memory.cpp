#include "batch/gpu_memory.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <sstream>

namespace grader {

namespace {

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string s) {
  s.erase(0, s.find_first_not_of(" \t\r"));
  s.erase(s.find_last_not_of(" \t\r") + 1);
  return s;
}

bool parse_number(const std::string& text, double& out) {
  try {
    std::size_t used = 0;
    out = std::stod(text, &used);
    return used > 0 && trim(text.substr(used)).find_first_not_of("MiB ") == std::string::npos;
  } catch (const std::exception&) {
    return false;
  }
}

std::string run_command(const std::string& command) {
  std::string out;
  if (FILE* p = ::popen((command + " 2>/dev/null").c_str(), "r")) {
    char buf[4096];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    ::pclose(p);
  }
  return out;
}

}  // namespace

bool mentions_out_of_memory(const std::string& text) {
  const std::string t = lower(text);
  for (const char* word : {"out of memory", "cudaerrormemoryallocation", "cuda_error_out_of_memory"})
    if (t.find(word) != std::string::npos) return true;
  return false;
}

bool phase_out_of_memory(const std::vector<CaseResult>& recorded, const std::string& ended_how) {
  if (mentions_out_of_memory(ended_how)) return true;
  return std::any_of(recorded.begin(), recorded.end(),
                     [](const CaseResult& c) { return !c.passed() && mentions_out_of_memory(c.detail); });
}

int launch_errors_named(const std::string& text, bool invalid_argument) {
  const std::string t = lower(text);
  std::vector<const char*> errors = {
      "invalid configuration argument", "cudaerrorinvalidconfiguration", "too many resources requested for launch",
      "cudaerrorlaunchoutofresources",  "no kernel image is available",  "cudaerrornokernelimagefordevice",
      "invalid device function",        "cudaerrorinvaliddevicefunction"};
  if (invalid_argument) errors.insert(errors.end(), {"invalid argument", "cudaerrorinvalidvalue"});
  int named = 0;  // lines: "invalid argument (cudaErrorInvalidValue)" is one error
  std::istringstream lines(t);
  for (std::string line; std::getline(lines, line);)
    if (std::any_of(errors.begin(), errors.end(), [&](const char* e) { return line.find(e) != std::string::npos; }))
      ++named;
  return named;
}

std::string reason_to_run_alone(const std::vector<CaseResult>& recorded, const std::string& ended_how,
                                bool ended_abnormally, bool memory_held_beside) {
  if (phase_out_of_memory(recorded, ended_how)) return "out of GPU memory";
  const auto hang = [](const std::string& text) {
    return text.find("did not finish") != std::string::npos || text.find("no result after") != std::string::npos;
  };
  if (std::any_of(recorded.begin(), recorded.end(), [&](const CaseResult& c) { return hang(c.detail); })) return "";
  const auto failed = std::count_if(recorded.begin(), recorded.end(), [](const CaseResult& c) {
    return c.outcome == Outcome::Crashed || c.outcome == Outcome::Error;
  });
  if (failed > 0 && launch_errors_named(ended_how, !memory_held_beside) >= failed)
    return "";  // each crash its own launch's
  return failed > 0 || (ended_abnormally && !hang(ended_how)) ? "crashed" : "";
}

std::vector<GpuApp> parse_compute_apps(const std::string& csv) {
  std::vector<GpuApp> apps;
  std::istringstream in(csv);
  for (std::string line; std::getline(in, line);) {
    const auto first = line.find(','), last = line.rfind(',');
    if (first == std::string::npos) continue;
    double pid = 0, mib = 0;
    if (!parse_number(trim(line.substr(0, first)), pid) || !parse_number(trim(line.substr(last + 1)), mib)) continue;
    if (pid <= 0) continue;
    apps.push_back({static_cast<int>(pid), mib});
  }
  return apps;
}

std::vector<int> ancestors(int pid, int max_depth) {
  std::vector<int> out;
  for (int depth = 0; depth < max_depth && pid > 1; ++depth) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
    const auto close = text.rfind(')');  // the command name may hold spaces and parentheses
    if (close == std::string::npos) break;
    std::istringstream rest(text.substr(close + 1));
    std::string state;
    int parent = 0;
    if (!(rest >> state >> parent) || parent <= 0) break;
    out.push_back(parent);
    pid = parent;
  }
  return out;
}

GpuMemoryWatch::GpuMemoryWatch(std::string command, double period_s)
    : command_(std::move(command)), period_s_(period_s) {
  if (enabled()) thread_ = std::thread([this] { loop(); });
}

GpuMemoryWatch::~GpuMemoryWatch() {
  {
    std::lock_guard<std::mutex> l(m_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void GpuMemoryWatch::started(int root_pid, const std::string& student, int gpu) {
  std::lock_guard<std::mutex> l(m_);
  running_[root_pid] = {student, gpu};
  cv_.notify_all();
}

void GpuMemoryWatch::ended(int root_pid) {
  std::lock_guard<std::mutex> l(m_);
  running_.erase(root_pid);
}

void GpuMemoryWatch::loop() {
  std::unique_lock<std::mutex> l(m_);
  while (!stop_) {
    cv_.wait(l, [&] { return stop_ || !running_.empty(); });
    if (stop_) break;
    l.unlock();
    sample();
    l.lock();
    cv_.wait_for(l, std::chrono::duration<double>(period_s_), [&] { return stop_; });
  }
}

void GpuMemoryWatch::sample() {
  if (!enabled()) return;
  const auto apps = parse_compute_apps(run_command(command_));
  const auto now = std::chrono::steady_clock::now();
  std::map<int, Running> running;
  {
    std::lock_guard<std::mutex> l(m_);
    running = running_;
  }
  std::map<std::pair<std::string, int>, double> held;  // (student, gpu) -> MiB now
  for (const auto& app : apps) {
    std::vector<int> line = ancestors(app.pid);
    line.insert(line.begin(), app.pid);
    for (const int pid : line)
      if (const auto it = running.find(pid); it != running.end()) {
        held[{it->second.student, it->second.gpu}] += app.used_mib;
        break;
      }
  }
  std::lock_guard<std::mutex> l(m_);
  const auto horizon = now - std::chrono::hours(1);
  samples_.erase(std::remove_if(samples_.begin(), samples_.end(), [&](const Sample& s) { return s.at < horizon; }),
                 samples_.end());
  for (const auto& [key, mib] : held) samples_.push_back({now, key.first, key.second, mib});
}

bool GpuMemoryWatch::saw(const std::string& student, int gpu, std::chrono::steady_clock::time_point from,
                         std::chrono::steady_clock::time_point to) const {
  std::lock_guard<std::mutex> l(m_);
  return std::any_of(samples_.begin(), samples_.end(), [&](const Sample& s) {
    return s.gpu == gpu && s.student == student && s.at >= from && s.at <= to && s.mib > 0;
  });
}

std::optional<GpuMemoryWatch::Holder> GpuMemoryWatch::largest_beside(const std::string& victim, int gpu,
                                                                     std::chrono::steady_clock::time_point from,
                                                                     std::chrono::steady_clock::time_point to,
                                                                     double min_mib) const {
  std::lock_guard<std::mutex> l(m_);
  std::optional<Holder> best;
  for (const auto& s : samples_)
    if (s.gpu == gpu && s.student != victim && s.at >= from && s.at <= to && s.mib >= min_mib &&
        (!best || s.mib > best->peak_mib))
      best = Holder{s.student, s.mib};
  return best;
}

}  // namespace grader
