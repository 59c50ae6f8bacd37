// grader device: what the GPUs are (like the CUDA samples' deviceQuery).
#include "command.hpp"

#include "workbook/device_query.hpp"

#include <nlohmann/json.hpp>

#include <iostream>
#include <memory>

namespace grader::cli {
namespace {

int describe_devices(bool json) {
  std::string why;
  const int count = workbook::device_count(&why);
  if (count == 0) {
    if (json) {
      std::cout << nlohmann::json{{"devices", nlohmann::json::array()}, {"error", why}}.dump(2) << std::endl;
    } else {
      std::cerr << "no CUDA GPU is usable here: " << why << '\n';
    }
    return 4;
  }
  nlohmann::json devices = nlohmann::json::array();
  for (const auto& d : workbook::query_all_devices()) {
    if (json) {
      devices.push_back({{"index", d.index},
                         {"name", d.name},
                         {"compute_capability", d.compute_capability()},
                         {"multiprocessors", d.multiprocessors},
                         {"sm_clock_mhz", d.sm_clock_khz / 1000},
                         {"memory_clock_mhz", d.memory_clock_khz / 1000},
                         {"memory_bus_bits", d.memory_bus_bits},
                         {"peak_bandwidth_gbs", d.peak_bandwidth_gbs()},
                         {"global_memory_bytes", d.global_memory_bytes},
                         {"l2_bytes", d.l2_bytes},
                         {"shared_per_block", d.shared_per_block},
                         {"shared_per_block_optin", d.shared_per_block_optin},
                         {"shared_per_sm", d.shared_per_sm},
                         {"driver_version", d.driver_version},
                         {"runtime_version", d.runtime_version}});
    } else {
      std::cout << workbook::format_device(d) << '\n';
    }
  }
  if (json) std::cout << nlohmann::json{{"devices", devices}}.dump(2) << std::endl;
  return 0;
}

}  // namespace

Command setup_device(CLI::App& app) {
  auto json = std::make_shared<bool>(false);
  auto* device = app.add_subcommand("device", "Describe the GPU(s) of this machine");
  device->add_flag("--json", *json, "Machine-readable output");
  return {device, [json](const Paths&) { return describe_devices(*json); }};
}

}  // namespace grader::cli
