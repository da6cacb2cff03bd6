// `weft schedule --external`: a Python strategy reproduces the built-in level-rr exactly, and a
// failing, slow or lying program is refused with the reason and the right exit code.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "cli_runner.h"

namespace {

using weft::test::contains;
weft::test::CliResult run_weft(const std::string& args) {
  return weft::test::run_cli(args, weft::test::StderrMode::Separate);
}
std::string model(const std::string& name) { return weft::test::model_path(name); }
const std::string kExample = std::string(WEFT_SOURCE_DIR) + "/examples/strategies/level_rr.py";

std::string script(const std::string& name, const std::string& body) {
  const std::string path = weft::test::temp_path(name);
  std::ofstream(path) << body;
  return path;
}

// The Python example's schedule equals the built-in level-rr's streams, on several models, caps,
// granularities and launch modes.
TEST(CliExternal, PythonLevelRrEqualsBuiltIn) {
  for (const std::string m : {"googlenet", "transformer4h"}) {
    for (const std::string opts : {"", " --streams 3", " --graph --granularity 0 --streams 2"}) {
      const std::string dims = m == "transformer4h" ? " --dim batch=1" : "";
      const auto ours = run_weft("schedule " + model(m) + dims + opts + " --strategy level-rr --json");
      ASSERT_EQ(ours.code, 0) << ours.err;
      const auto theirs = run_weft("schedule " + model(m) + dims + opts + " --json --external python3 " + kExample);
      ASSERT_EQ(theirs.code, 0) << m << opts << ": " << theirs.err;
      const auto a = nlohmann::json::parse(ours.out), b = nlohmann::json::parse(theirs.out);
      EXPECT_EQ(a["streams"], b["streams"]) << m << opts;
      EXPECT_EQ(a["events"], b["events"]) << m << opts;
      EXPECT_EQ(b["strategy"], "external level-rr.py");
    }
  }
}

// Programs that fail are runtime errors (exit 3) quoting their stderr; schedules that do not fit
// the model are invalid input (exit 2) with the import's reason; arguments reach the program as
// they are, without a shell.
TEST(CliExternal, FailuresAreReportedWithTheReason) {
  const std::string base = "schedule " + model("googlenet") + " --external ";
  auto r = run_weft(base + "python3 " + script("weft_ext_fail.py", "import sys\nsys.stderr.write('no luck here')\nsys.exit(5)\n"));
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(contains(r.err, "exited with status 5")) << r.err;
  EXPECT_TRUE(contains(r.err, "no luck here")) << r.err;

  r = run_weft("schedule " + model("googlenet") + " --external-timeout 0.5 --external python3 " +
               script("weft_ext_slow.py", "import time\ntime.sleep(30)\n"));
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(contains(r.err, "timed out")) << r.err;

  r = run_weft(base + "/nonexistent/strategy");
  EXPECT_EQ(r.code, 3);
  EXPECT_TRUE(contains(r.err, "cannot run '/nonexistent/strategy'")) << r.err;

  const std::string reply_unknown =
      "import json,sys\njson.load(sys.stdin)\nprint(json.dumps({'format':'weft-schedule','version':1,'streams':[['nope']]}))\n";
  r = run_weft(base + "python3 " + script("weft_ext_unknown.py", reply_unknown));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "unknown node 'nope'")) << r.err;

  // Every node on one stream in reverse topological order: it would deadlock.
  const std::string reply_deadlock =
      "import json,sys\ni=json.load(sys.stdin)\nkeys=[i['nodes'][v]['key'] for v in reversed(i['topo_order'])]\n"
      "print(json.dumps({'format':'weft-schedule','version':1,'streams':[keys]}))\n";
  r = run_weft(base + "python3 " + script("weft_ext_deadlock.py", reply_deadlock));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "deadlock")) << r.err;

  r = run_weft(base + "python3 " + script("weft_ext_garbage.py", "print('hello')\n"));
  EXPECT_EQ(r.code, 2);
  EXPECT_TRUE(contains(r.err, "malformed JSON")) << r.err;

  // A shell would expand $HOME and run the second command; the program must see the words as given.
  const std::string echo_args =
      "import json,sys\nopen(sys.argv[1],'w').write(json.dumps(sys.argv[2:]))\nsys.exit(1)\n";
  const std::string seen = weft::test::temp_path("weft_ext_args.json");
  {
    std::vector<std::string> argv;
    std::istringstream words(base + "python3 " + script("weft_ext_args.py", echo_args) + " " + seen);
    for (std::string w; words >> w;) argv.push_back(w);
    argv.push_back("$HOME");
    argv.push_back("a;touch /tmp/x");
    r = weft::test::run_argv(argv, weft::test::StderrMode::Separate);
  }
  EXPECT_EQ(r.code, 3);
  std::ifstream in(seen);
  const auto args = nlohmann::json::parse(in);
  EXPECT_EQ(args, nlohmann::json::array({"$HOME", "a;touch /tmp/x"}));
}

// Usage errors: no program, --external with --strategy or --compare, a timeout without --external.
TEST(CliExternal, UsageErrors) {
  EXPECT_EQ(run_weft("schedule " + model("googlenet") + " --external").code, 1);
  EXPECT_EQ(run_weft("schedule " + model("googlenet") + " --strategy chains --external python3 x.py").code, 1);
  EXPECT_EQ(run_weft("schedule " + model("googlenet") + " --compare --external python3 x.py").code, 1);
  EXPECT_EQ(run_weft("schedule " + model("googlenet") + " --strategy chains --external-timeout 3").code, 1);
}

}  // namespace
