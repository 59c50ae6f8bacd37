#include "grader/test_program_env.hpp"

namespace grader {

std::map<std::string, std::string> test_program_env(const TestProgramEnv& e) {
  std::map<std::string, std::string> v;
  if (e.seed) v["WORKBOOK_SEED"] = std::to_string(*e.seed);
  if (e.config) v["WORKBOOK_CONFIG"] = e.config->string();
  if (e.source_dir) v["WORKBOOK_SOURCE_DIR"] = e.source_dir->string();
  if (e.overrides) v["WORKBOOK_OVERRIDES"] = *e.overrides;
  if (e.results) v["WORKBOOK_RESULTS"] = e.results->string();
  if (e.results_fd) v["WORKBOOK_RESULTS_FD"] = std::to_string(*e.results_fd);
  if (e.gate_fd) v["WORKBOOK_GATE_FD"] = std::to_string(*e.gate_fd);
  if (e.cache_dir) v["WORKBOOK_CACHE_DIR"] = e.cache_dir->string();
  if (e.phase_timeout_s) v["WORKBOOK_PHASE_TIMEOUT_S"] = std::to_string(*e.phase_timeout_s);
  if (e.runner) v["WORKBOOK_RUNNER"] = e.runner->string();
  if (e.runner_file_bytes) v["WORKBOOK_RUNNER_FILE_BYTES"] = std::to_string(*e.runner_file_bytes);
  if (e.lab_alone) v["WORKBOOK_LAB_ALONE"] = "1";
  if (e.fewer_cases) v["WORKBOOK_FEWER_CASES"] = "1";
  if (e.untimed) v["WORKBOOK_UNTIMED"] = "1";
  if (e.leaderboard_calls) v["WORKBOOK_LEADERBOARD_CALLS"] = std::to_string(*e.leaderboard_calls);
  if (e.leaderboard_tiers) v["WORKBOOK_LEADERBOARD_TIERS"] = "1";
  if (e.leaderboard_out) v["WORKBOOK_LEADERBOARD_OUT"] = e.leaderboard_out->string();
  if (e.leaderboard_out_fd) v["WORKBOOK_LEADERBOARD_OUT_FD"] = std::to_string(*e.leaderboard_out_fd);
  return v;
}

std::string override_list(const std::vector<std::filesystem::path>& files) {
  std::string list;
  for (const auto& f : files) list += (list.empty() ? "" : ":") + std::filesystem::absolute(f).string();
  return list;
}

}  // namespace grader
