// `grader batch <lab> <submissions> -o <results>`: grade a whole class.
//
// Per submission: take its editable files (submission.hpp), build them in a folder of their own
// against this build's tests (grader/batch/CMakeLists.txt), run the tests in the sandbox
// (sandbox.hpp) in two phases: correctness and static checks, several submissions at a time,
// then the timed cases alone on the GPU, so that no other work disturbs a timing. Each result
// is written as soon as it is known (atomically), the gradebook rewritten with it; a run that
// is interrupted resumes where it stopped.
#pragma once

#include "grader/gradebook.hpp"
#include "grader/roster.hpp"
#include "grader/submission.hpp"
#include "tree/labs.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <optional>
#include <string>
#include <vector>

namespace grader {

// The program that grades a submission built in `build`: this build's test program (the
// harness) with the submission's runner, for labs whose code runs in a process of its own
// (grader/remote/); else the submission's own test program (tests and code linked together).
struct SubmissionProgram {
  std::filesystem::path program;
  std::optional<std::filesystem::path> runner;  // the runner of the submission's code, for a harness
};
SubmissionProgram submission_program(const Paths& paths, const std::string& lab, const std::filesystem::path& build);

// What a submission's build and run must not see (hermetic grading: a grade comes from the
// student's own code or not at all), besides `also` (the submissions, the results): the reference
// solutions, the graders' test sources, the project's tests and docs, the other labs; in the
// build tree the programs (the reference's runner among them) and the labs' compiled code. The
// caller shows again, read-only, what one run needs (the harness program, the objects a
// submission's program links).
std::vector<std::filesystem::path> hidden_from_submissions(const Paths& paths, const std::string& lab,
                                                           std::vector<std::filesystem::path> also);

struct BatchOptions {
  std::string lab;
  std::filesystem::path submissions;
  std::filesystem::path out;
  std::vector<std::filesystem::path> overrides;  // course points and thresholds
  std::optional<std::uint64_t> seed;             // the same inputs for every submission
  std::vector<std::string> regrade;              // students to grade again (others are kept)
  bool regrade_all = false;
  // --build-only: prepare and build every submission, run nothing (status "built"). The one way
  // to use `batch` on a machine without a usable GPU; a later run with a GPU grades them.
  bool build_only = false;
  // --roster: the course's enrolment (grader/include/grader/roster.hpp): a row for every student
  // on it, "no submission" where nothing came; submissions named by LMS id graded under the id.
  std::optional<std::filesystem::path> roster;
  // --from: how the submissions folder is laid out (course/lms.hpp): folders, canvas, moodle.
  std::string from = "folders";
  // --times: when each submission came (course/lateness.hpp), for the course's [deadline].
  std::optional<std::filesystem::path> times;
  // --lms-assignment: the grade column's heading in canvas.csv and moodle.csv (default: the lab).
  std::string lms_assignment;
  // --run-without-gpu (hidden, for the project's CPU tests): run the submissions even where no
  // GPU is usable. Their start-up code runs (the sandbox is tested on it); each then reports
  // "no GPU".
  bool run_without_gpu = false;
  int jobs = 0;      // submissions prepared and built at once (0: the CPU count)
  int gpu_jobs = 0;  // correctness runs on each GPU at once (timed runs: always one); 0: shared_phases_per_gpu()
  // --early-timed-start (hidden until measured on GPUs): a phase that needs its GPU alone starts
  // its program at once and waits at a gate once its CUDA context is made (grader/gpu_gate.hpp),
  // instead of starting once the GPU is its alone.
  bool early_timed_start = false;
  // --gpus: the GPUs to grade on, as the grader's CUDA ordinals ("0,2", "0-3"); "all": every
  // visible one. Submissions spread over them (batch/gpu_pool.hpp), each on one GPU model.
  std::string gpus = "all";
  // --gpu-apps-command (hidden, for tests): what lists the GPU's processes ("pid, MiB" lines) to
  // name a submission that held the memory another ran out of; "" nvidia-smi, "none" off.
  std::string gpu_apps_command;
  // --configure-each (hidden): a CMake configure per submission, as before the shared template
  // (batch/build_template.hpp); for measuring, and a way around a template that fails.
  bool configure_each = false;
  double build_timeout_s = 600;
  std::optional<double> run_timeout_s;  // per test phase; default: lab.toml's timeout_s
  std::size_t memory_bytes = 16ull << 30;
  int max_processes = 64;
  bool sandbox = true;  // false: --no-sandbox (only the process limits)
  // --feedback-profile: Nsight Compute on each correct-but-slow exercise (correct, too slow),
  // in the sandbox, beside the reference's, into the student's feedback; at most this long per
  // submission (its exercises share it), run alone on the GPU.
  bool feedback_profile = false;
  double feedback_profile_s = 180;
  std::string thresholds_note;  // where the thresholds come from (calibrate/calibrate.hpp), for reports
  // One task of a Slurm job array (slurm/slurm_batch.hpp): grade only these students, each into
  // its own files (students/, feedback/, gradescope/), and leave the files of the whole class
  // (batch.json, gradebook.csv, results.json) to the submitting grader, which merges at the end.
  // The reference test program is built by then: not built again. `task_name` names its logs.
  std::vector<std::string> task_students;
  std::string task_name;
  // The merge of a Slurm array: the class's files from the students' results, grading nothing
  // here (a login node has no GPU); a submission without a result is named, not graded.
  bool merge_only = false;
  bool task() const { return !task_name.empty(); }
};

// The class's submissions as `grader batch` grades them: read in the --from layout
// (course/lms.hpp), then named by the course's id where --roster maps an LMS id (or an e-mail,
// or, for an entry whose name is no usable id, the student's name) to one; of two entries for one
// student, the newest (course/duplicates.hpp: throws DuplicateEntries where nothing says which).
// With `say`, each mapping, each derived id, each stranger and each skipped entry is written to
// stderr. `entry_names` and `names` get each student's entry name and the LMS's name for them.
struct ClassSubmissions {
  std::vector<Submission> submissions;
  std::map<std::string, std::string> entry_names;  // id -> the entry's own name (an LMS id)
  std::map<std::string, std::string> entries;      // id -> the kept entry's name (a folder's, a file's)
  std::map<std::string, std::string> names;        // id -> the student's name in the LMS download
  std::vector<std::string> skipped;                // entries not graded, each with why
  // id -> the time --times gives the entry kept for that student (keyed by its LMS id or its
  // name): where two entries were told apart by their times, the late work is the kept one's.
  std::map<std::string, std::int64_t> kept_times;
  std::set<std::string> entry_keys;  // every entry's LMS id and name, the ignored ones' too
};
ClassSubmissions class_submissions(const BatchOptions& options, const LabConfig& config, const Roster* roster,
                                   bool say);

int run_batch(const Paths& paths, const BatchOptions& options);

// Throws std::invalid_argument when the results folder is the submissions folder or inside it,
// or names a file (-o results.csv).
// Whether a resumed run keeps a student's earlier result. Never what says nothing of the
// student's work: "no GPU" where it ran, the grader's own error, a Slurm task that never ran;
// "built" only in another --build-only run.
bool worth_keeping(const StudentResult& r, bool build_only);

void refuse_output_inside_submissions(const BatchOptions& options);

}  // namespace grader
