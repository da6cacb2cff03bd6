// One error rule across commands: a missing or unreadable model file is invalid input (exit 2)
// in every command that takes MODEL, and bad names or values given as options are usage errors
// (exit 1) even though core reports them as invalid input (core never returns Usage).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "cli_runner.h"

namespace {

using weft::test::contains;
using weft::test::run_cli;
using weft::test::StderrMode;
std::string model(const std::string& name) { return weft::test::model_path(name); }

}  // namespace

// Every MODEL-taking command (app/weft/main.cpp: all but devices and help; sweep and plan also
// have forms without a model): a path that does not exist and a folder (exists, cannot be read
// as a file) both exit 2 and name the path. `run --backend cuda` loads the CUDA module before the
// model, so without a GPU it exits 3 first; it is left out here.
TEST(CliErrors, MissingOrUnreadableModelIsInvalidInput) {
  const std::string missing = weft::test::temp_path("weft_no_such_model_errors.onnx");
  const std::string folder = weft::test::temp_path("weft_model_is_a_folder.onnx");
  std::filesystem::create_directories(folder);
  for (const std::string command : {"analyze", "advise", "schedule --strategy chains", "schedule --compare", "plan", "simulate",
                                    "run --backend cpu", "layers", "sweep --batches 1", "calibrate", "frontier"}) {
    for (const std::string& path : std::vector<std::string>{missing, folder}) {
      const std::string verb = command.substr(0, command.find(' '));
      const std::string rest = command.find(' ') == std::string::npos ? "" : command.substr(command.find(' '));
      const auto r = run_cli(verb + " " + path + rest, StderrMode::Separate);
      EXPECT_EQ(r.code, 2) << command << " " << path << ": " << r.err;
      EXPECT_TRUE(contains(r.err, path)) << command << ": " << r.err;
    }
  }
  for (const std::string& path : std::vector<std::string>{missing, folder}) {
    const auto v = run_cli("validate " + path + " " + missing, StderrMode::Separate);
    EXPECT_EQ(v.code, 2) << v.err;
    EXPECT_TRUE(contains(v.err, path)) << v.err;
  }
  std::filesystem::remove_all(folder);
}

// A schedule, device or wires "file" that never ends (/dev/zero) is refused at the text-file
// limit, naming it, instead of filling memory.
TEST(CliErrors, EndlessInputFilesAreRefused) {
  for (const std::string& args : {"validate " + model("googlenet") + " /dev/zero", "simulate " + model("googlenet") + " --schedule /dev/zero",
                                  "analyze " + model("googlenet") + " --device /dev/zero",
                                  "layers " + model("googlenet") + " --wires /dev/zero"}) {
    const auto r = run_cli(args, StderrMode::Separate);
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "/dev/zero: larger than")) << args << ": " << r.err;
  }
}

// Names core checks (strategy, planner, device, stream cap) are refused as usage errors with
// core's message, which lists the known names.
TEST(CliErrors, BadNamesAreUsageErrorsWithCoreMessages) {
  auto r = run_cli("schedule " + model("squeezenet1_1") + " --strategy nope", StderrMode::Separate);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "unknown strategy 'nope'") && contains(r.err, "cp-list")) << r.err;
  r = run_cli("plan " + model("squeezenet1_1") + " --planner nope", StderrMode::Separate);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "unknown planner 'nope'") && contains(r.err, "greedy-by-size")) << r.err;
  r = run_cli("run " + model("squeezenet1_1") + " --planner nope", StderrMode::Separate);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "greedy-by-size")) << r.err;
  r = run_cli("simulate " + model("squeezenet1_1") + " --streams 2000", StderrMode::Separate);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "between 1 and 1024")) << r.err;
  r = run_cli("schedule " + model("squeezenet1_1") + " --strategy chains --device nope", StderrMode::Separate);
  EXPECT_EQ(r.code, 1);
  EXPECT_TRUE(contains(r.err, "unknown device 'nope'")) << r.err;
  // frontier's --caps: core's stream-cap check (check_strategy) refuses, the message names --caps.
  for (const std::string caps : {"2000", "0", "two", "1,2,x"}) {
    r = run_cli("frontier " + model("squeezenet1_1") + " --caps " + caps, StderrMode::Separate);
    EXPECT_EQ(r.code, 1) << caps << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "--caps needs stream caps between 1 and 1024")) << caps << ": " << r.err;
  }
}

// Core parses --dim and --split values (dim_binding.h, split_study.h) and refuses a bad one as
// invalid input naming the value; every command reports it as a usage error (exit 1).
TEST(CliErrors, BadDimOrSplitIsUsageError) {
  const std::vector<std::pair<std::string, std::string>> bad{{"--dim nonsense", "dim binding 'nonsense'"},
                                                             {"--dim batch=0", "dim binding 'batch=0'"},
                                                             {"--dim batch=2x", "dim binding 'batch=2x'"},
                                                             {"--split banana", "split 'banana'"},
                                                             {"--split 0", "split '0'"}};
  for (const std::string command : {"analyze", "advise", "schedule --strategy chains", "simulate", "frontier", "sweep --batches 1"}) {
    for (const auto& [option, quoted] : bad) {
      if (command.rfind("sweep", 0) == 0 && option.rfind("--split", 0) == 0) continue;  // sweep takes no --split
      const auto r = run_cli(command.substr(0, command.find(' ')) + " " + model("squeezenet1_1") +
                                 (command.find(' ') == std::string::npos ? "" : command.substr(command.find(' '))) + " " + option,
                             StderrMode::Separate);
      EXPECT_EQ(r.code, 1) << command << " " << option << ": " << r.err;
      EXPECT_TRUE(contains(r.err, quoted)) << command << " " << option << ": " << r.err;
    }
  }
}
