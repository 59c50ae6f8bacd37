#include "inspect/ncu_output.hpp"

#include "grader/csv_reader.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace grader::inspect {

std::string base_function(const std::string& kernel) {
  std::string name = std::regex_replace(kernel, std::regex(R"(\(anonymous namespace\))"), "<unnamed>");
  // The parameter list: the first '(' outside template arguments ("k<(Mode)1>(float *)").
  int depth = 0;
  for (std::size_t i = 0; i < name.size(); ++i) {
    depth += name[i] == '<' ? 1 : name[i] == '>' ? -1 : 0;
    if (name[i] == '(' && depth <= 0) {
      name.resize(i);
      break;
    }
  }
  if (!name.empty() && name.back() == '>') {  // trailing template arguments
    int depth = 0;
    for (std::size_t i = name.size(); i-- > 0;) {
      depth += name[i] == '>' ? 1 : name[i] == '<' ? -1 : 0;
      if (depth == 0) {
        name.resize(i);
        break;
      }
    }
  }
  if (const auto space = name.rfind(' '); space != std::string::npos) name = name.substr(space + 1);  // "void f"
  if (const auto colons = name.rfind("::"); colons != std::string::npos) name = name.substr(colons + 2);
  return name;
}

namespace {

// Values in the base unit whatever ncu chose to print (it scales them unless --print-units base):
// times in nanoseconds, sizes in bytes.
double unit_scale(const std::string& unit) {
  static const std::map<std::string, double> scale = {
      {"nsecond", 1},  {"ns", 1},   {"usecond", 1e3}, {"us", 1e3},    {"msecond", 1e6}, {"ms", 1e6},
      {"second", 1e9}, {"s", 1e9},  {"byte", 1},      {"Kbyte", 1e3}, {"Mbyte", 1e6},   {"Gbyte", 1e9},
      {"Tbyte", 1e12}, {"KB", 1e3}, {"MB", 1e6},      {"GB", 1e9}};
  const auto it = scale.find(unit);
  return it == scale.end() ? 1.0 : it->second;
}

}  // namespace

std::vector<KernelLaunch> parse_ncu_csv(const std::string& text) {
  const auto header = text.find("\"ID\",");
  if (header == std::string::npos) throw std::runtime_error("ncu printed no table of metrics");
  // The table's lines only: ncu's own (==PROF==, ==WARNING==) or the program's may follow it.
  std::string rows;
  std::istringstream lines(text.substr(header));
  for (std::string line; std::getline(lines, line);)
    if (!line.empty() && line[0] == '"') rows += line + "\n";
  std::istringstream table(rows);
  io::CSVReader<7, io::trim_chars<' '>, io::double_quote_escape<',', '"'>> in("ncu output", table);
  in.read_header(io::ignore_extra_column, "ID", "Kernel Name", "Block Size", "Grid Size", "Metric Name", "Metric Unit",
                 "Metric Value");
  std::vector<KernelLaunch> launches;
  std::string id, kernel, block, grid, metric, unit, value;
  while (in.read_row(id, kernel, block, grid, metric, unit, value)) {
    const int n = std::stoi(id);
    if (launches.empty() || launches.back().id != n) {
      KernelLaunch k;
      k.id = n;
      k.kernel = kernel;
      k.function = base_function(kernel);
      k.block = block;
      k.grid = grid;
      launches.push_back(std::move(k));
    }
    std::string digits;  // "134,224,128" -> 134224128
    for (char c : value)
      if (c != ',') digits += c;
    try {
      launches.back().metrics[metric] = std::stod(digits) * unit_scale(unit);
    } catch (const std::exception&) {  // "n/a": not measurable for this launch
    }
  }
  return launches;
}

std::vector<std::string> kernels_defined_in(const std::string& source) {
  // Comments out first: "// __global__ kernels run on the device (GPU)" names no kernel.
  const std::string code = std::regex_replace(std::regex_replace(source, std::regex(R"(//[^\n]*)"), ""),
                                              std::regex(R"(/\*[\s\S]*?\*/)"), "");
  std::vector<std::string> names;
  const auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (std::size_t at = code.find("__global__"); at != std::string::npos; at = code.find("__global__", at + 1)) {
    if ((at > 0 && ident(code[at - 1])) || (at + 10 < code.size() && ident(code[at + 10]))) continue;
    // After __global__: qualifiers, the return type, __launch_bounds__(...) anywhere among them,
    // then the kernel's name and its '('.
    std::size_t i = at + 10;
    std::string last;
    while (i < code.size()) {
      if (std::isspace(static_cast<unsigned char>(code[i]))) {
        ++i;
        continue;
      }
      if (ident(code[i])) {
        std::size_t j = i;
        while (j < code.size() && (ident(code[j]) || code[j] == ':')) ++j;
        last = code.substr(i, j - i);
        i = j;
        continue;
      }
      if (code[i] == '(') {
        if (last == "__launch_bounds__") {  // skip its arguments, parentheses and all
          int depth = 0;
          do {
            depth += code[i] == '(' ? 1 : code[i] == ')' ? -1 : 0;
            ++i;
          } while (i < code.size() && depth > 0);
          last.clear();
          continue;
        }
        break;
      }
      if (code[i] == ';' || code[i] == '{') {  // not a function after all
        last.clear();
        break;
      }
      ++i;  // '*', '&', '<', ...
    }
    if (const auto colons = last.rfind("::"); colons != std::string::npos) last = last.substr(colons + 2);
    if (!last.empty() && last != "__launch_bounds__" && std::find(names.begin(), names.end(), last) == names.end())
      names.push_back(last);
  }
  return names;
}

std::optional<std::string> unknown_metric(const std::string& output) {
  static const std::regex failed(R"(Failed to find metric\s+([A-Za-z0-9_.]+))");
  std::smatch m;
  if (std::regex_search(output, m, failed)) return m[1].str();
  return std::nullopt;
}

std::string ncu_failure(const std::string& output) {
  if (output.find("ERR_NVGPUCTRPERM") != std::string::npos)
    return "Nsight Compute may not read this GPU's performance counters (ERR_NVGPUCTRPERM). An administrator "
           "can allow it for everyone (the nvidia kernel module's option NVreg_RestrictProfilingToAdminUsers=0, "
           "see https://developer.nvidia.com/ERR_NVGPUCTRPERM); or run the grader as root";
  if (const auto metric = unknown_metric(output))
    return "this Nsight Compute does not know the metric " + *metric + " (an older ncu, or a GPU it does not cover)";
  return {};
}

namespace {

using Values = std::map<std::string, double>;

std::optional<double> get(const Values& v, const std::string& name) {
  const auto it = v.find(name);
  if (it == v.end()) return std::nullopt;
  return it->second;
}

std::optional<double> ratio(const Values& v, const std::string& a, const std::string& b, double scale = 1.0) {
  const auto x = get(v, a), y = get(v, b);
  if (!x || !y || *y == 0) return std::nullopt;
  return *x / (*y * scale);
}

std::optional<double> sum(const Values& v, const std::vector<std::string>& names) {
  double total = 0;
  for (const auto& n : names) {
    const auto x = get(v, n);
    if (!x) return std::nullopt;
    total += *x;
  }
  return total;
}

LabMetric single(std::string id, std::string label, std::string ncu, std::string format, bool lower_is_better,
                 double noise, std::string reading) {
  LabMetric m{std::move(id),   std::move(label),   {ncu}, {}, std::move(format),
              lower_is_better, std::move(reading), noise};
  m.value = [ncu](const Values& v) { return get(v, ncu); };
  return m;
}

// A metric that is one counter over another (times a scale): sectors per request, loads per FMA.
LabMetric quotient(std::string id, std::string label, std::string numerator, std::string denominator, double scale,
                   std::string format, bool lower_is_better, double noise, std::string reading) {
  LabMetric m{std::move(id),     std::move(label), {numerator, denominator}, {},
              std::move(format), lower_is_better,  std::move(reading),       noise};
  m.value = [numerator, denominator, scale](const Values& v) { return ratio(v, numerator, denominator, scale); };
  return m;
}

std::map<std::string, LabMetric> make_metrics() {
  std::map<std::string, LabMetric> all;
  const auto add = [&](LabMetric m) { all.emplace(m.id, std::move(m)); };
  {
    LabMetric m{"duration",
                "kernel time (ms)",
                {"gpu__time_duration.sum"},
                {},
                "{:.3f}",
                true,
                "one launch under the profiler, caches flushed; compare with the reference's, not with the graded "
                "time",
                0};
    m.value = [](const Values& v) -> std::optional<double> {
      const auto ns = get(v, "gpu__time_duration.sum");
      if (!ns) return std::nullopt;
      return *ns / 1e6;
    };
    add(std::move(m));
  }

  add(quotient("global_load_sectors_per_request", "global load sectors per request",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 1,
               "{:.1f}", true, 0.5,
               "4 when a warp's 32 threads read 32 neighbouring floats (coalesced: 4 sectors of 32 bytes); up to 32 "
               "when each thread reads a sector of its own (neighbouring threads a row apart)"));
  add(quotient("global_store_sectors_per_request", "global store sectors per request",
               "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", 1,
               "{:.1f}", true, 0.5,
               "the same for stores: 4 when a warp writes 32 neighbouring floats, 32 when each thread writes a "
               "row apart (a transpose's write side)"));
  add(single("dram_throughput", "DRAM throughput (% of peak)", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
             "{:.0f}%", false, 5,
             "how busy the memory was: a memory-bound kernel that reads each byte once is near 80-90%"));
  {
    LabMetric m{"shared_bank_conflicts",
                "shared-memory bank conflicts",
                {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                 "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"},
                {},
                "{:.0f}",
                true,
                "extra passes because threads of a warp hit the same bank: reading a column of a 32-wide float tile "
                "is a 32-way conflict; one padding column (TILE_DIM + 1) removes it",
                1000};
    m.value = [](const Values& v) {
      return sum(v, {"l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
                     "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"});
    };
    add(std::move(m));
  }
  // FMAs are counted per thread, loads per warp: the scale makes both warp-wide.
  add(quotient("shared_loads_per_fma", "shared-memory loads per FMA", "smsp__inst_executed_op_shared_ld.sum",
               "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", 1.0 / 32, "{:.2f}", true, 0.05,
               "warp-wide shared loads per warp-wide FMA: a tiled kernel loads both operands of each FMA from "
               "shared memory; coarsening and register tiles reuse each loaded value for several FMAs"));
  add(single("fp32_pipe", "FMA pipe busy (% of peak)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
             "{:.0f}%", false, 5,
             "how busy the FMA pipe was: FP32 adds, multiplies and FMAs, and also the integer multiply-adds "
             "(IMAD) of index arithmetic; for the same useful work, the higher, the closer to the arithmetic limit"));
  add(single("registers", "registers per thread", "launch__registers_per_thread", "{:.0f}", true, 8,
             "more registers hold more of a thread's tile, but fewer warps fit on an SM (occupancy)"));
  add(single("local_bytes", "local-memory bytes stored (spills)", "l1tex__t_bytes_pipe_lsu_mem_local_op_st.sum",
             "{:.0f}", true, 1024,
             "values that did not fit in registers and went to (slow) local memory: 0 is the goal; an array "
             "indexed by a run-time value is also kept there"));
  add(single("achieved_occupancy", "achieved occupancy (% of max warps)",
             "sm__warps_active.avg.pct_of_peak_sustained_active", "{:.0f}%", false, 5,
             "active warps per SM over the most an SM holds: enough of them hide memory latency"));
  {
    LabMetric m{"global_atomics",
                "global atomic instructions (warp-wide)",
                {"smsp__sass_inst_executed_op_global_atom.sum", "smsp__sass_inst_executed_op_global_red.sum"},
                {},
                "{:.0f}",
                true,
                "atomics on global memory: every thread's update goes to the same few addresses in L2, one after "
                "the other; privatized copies in shared memory turn most of them into shared atomics",
                1000};
    m.value = [](const Values& v) {
      return sum(v, {"smsp__sass_inst_executed_op_global_atom.sum", "smsp__sass_inst_executed_op_global_red.sum"});
    };
    add(std::move(m));
  }
  add(single("shared_atomics", "shared atomic instructions (warp-wide)", "smsp__sass_inst_executed_op_shared_atom.sum",
             "{:.0f}", false, 1000,
             "atomics on a block's private copy in shared memory: cheap, and only one global update per block "
             "and value remains"));
  add(single("dram_bytes_read", "DRAM bytes read", "dram__bytes_read.sum", "{:.3g}", true, 1e6,
             "every byte read from memory: an input read once is its size; more means re-reads that a cache or "
             "shared memory could save"));
  add(single("xu_instructions", "SFU (XU) instructions (warp-wide)", "smsp__inst_executed_pipe_xu.sum", "{:.3g}", true,
             1e4,
             "instructions on the special-function unit (sqrtf, a division's reciprocal, rsqrtf), which has a "
             "quarter of the FP32 units' throughput: one rsqrtf a term instead of sqrtf and two divisions uses it "
             "less"));
  return all;
}

}  // namespace

std::vector<MetricRow> compare_launch(
    const std::vector<std::string>& ids, const KernelLaunch& mine, const KernelLaunch* reference,
    const std::function<std::optional<std::pair<double, double>>(const std::string&)>& expected) {
  std::vector<MetricRow> rows;
  for (const auto& id : ids) {
    const LabMetric& m = lab_metrics().at(id);
    MetricRow row{id, m.value(mine.metrics), reference ? m.value(reference->metrics) : std::nullopt,
                  !reference && expected ? expected(id) : std::nullopt};
    if (row.yours && id != "duration") {
      // Far worse: by the factor, and by more than the metric's noise (3 bank conflicts against 0
      // are no finding).
      const double y = *row.yours;
      const auto worse_than = [&](double bound) {
        return m.lower_is_better ? y > kLookHere * bound && y - bound > m.noise
                                 : y * kLookHere < bound && bound - y > m.noise;
      };
      if (row.reference)
        row.look_here = worse_than(*row.reference);
      else if (row.expected)
        row.look_here = worse_than(m.lower_is_better ? row.expected->second : row.expected->first);
    }
    rows.push_back(row);
  }
  return rows;
}

const KernelLaunch* matching_kernel(const KernelLaunch& mine, std::size_t index,
                                    const std::vector<KernelLaunch>& theirs) {
  for (const auto& t : theirs)
    if (t.function == mine.function) return &t;
  return index < theirs.size() ? &theirs[index] : nullptr;
}

const std::map<std::string, LabMetric>& lab_metrics() {
  static const std::map<std::string, LabMetric> all = make_metrics();
  return all;
}

}  // namespace grader::inspect
