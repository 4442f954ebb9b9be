// cli::BashCompletion's script loaded in bash: what TAB offers for the last word of a line.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>

#include "cli/cli.hpp"
#include "tests/cli/demo_spec.hpp"

namespace robot_edge::cli {
namespace {

// A word quoted for bash.
std::string Quoted(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// COMPREPLY, space-separated, after completing `words` (the last one under the cursor) with the
// demo's script; `setup` runs first (in the test's directory).
std::string Offers(const std::vector<std::string>& words, bool subcommands = true,
                   const std::string& setup = "") {
  test::Seen seen;
  // Each test is its own process under ctest -j: one directory per process, or two tests
  // overwrite each other's script (with and without subcommands) mid-run.
  const std::string dir = ::testing::TempDir() + "completion-" + std::to_string(::getpid());
  ::mkdir(dir.c_str(), 0700);
  const std::string script = dir + "/demo-ctl.completion";
  std::ofstream(script) << BashCompletion(test::DemoSpec(&seen, subcommands));
  std::string line =
      "cd " + Quoted(dir) + " && " + setup + " source " + Quoted(script) + " && COMP_WORDS=(";
  for (const std::string& w : words) line += Quoted(w) + " ";
  line += "); COMP_CWORD=" + std::to_string(words.size() - 1) +
          "; COMPREPLY=(); _demo_ctl; echo \"${COMPREPLY[*]}\"";
  FILE* bash = ::popen(("bash -c " + Quoted(line) + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[256];
  while (std::fgets(buffer, sizeof buffer, bash) != nullptr) out += buffer;
  EXPECT_EQ(::pclose(bash), 0) << out;
  if (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

TEST(Completion, LoadsAndOffersEverySubcommand) {
  EXPECT_EQ(Offers({"demo-ctl", ""}), "status move record");
}

TEST(Completion, Subcommands) {
  EXPECT_EQ(Offers({"demo-ctl", "re"}), "record");
  EXPECT_EQ(Offers({"demo-ctl", "--socket", "/x", "--json", "m"}), "move")
      << "an option's value is not the subcommand";
}

TEST(Completion, OptionsOfTheSubcommandOnTheLine) {
  EXPECT_EQ(Offers({"demo-ctl", "move", "--ra"}), "--rate");
  EXPECT_EQ(Offers({"demo-ctl", "status", "--ra"}), "") << "--rate is move's only";
  EXPECT_EQ(Offers({"demo-ctl", "-"}).find("--secret"), std::string::npos) << "hidden";
  EXPECT_EQ(Offers({"demo-ctl", "--he"}), "--help");
}

TEST(Completion, WordValues) {
  EXPECT_EQ(Offers({"demo-ctl", "--pose", "st"}), "stand");
  EXPECT_EQ(Offers({"demo-ctl", "--pose=z"}), "zero");
  EXPECT_EQ(Offers({"demo-ctl", "--pose", "=", "z"}), "zero") << "bash's split '='";
  EXPECT_EQ(Offers({"demo-ctl", "--joints", "knee,h"}), "knee,hip") << "a list's last item";
  EXPECT_EQ(Offers({"demo-ctl", "--kp", ""}), "") << "a number: nothing";
}

TEST(Completion, Files) {
  const std::string setup = "rm -rf cdir && mkdir -p cdir/sub && touch cdir/a.xml cdir/b.txt;";
  EXPECT_EQ(Offers({"demo-ctl", "--model", "cdir/"}, true, setup), "cdir/a.xml cdir/sub");
  EXPECT_EQ(Offers({"demo-ctl", "--socket", "cdir/b"}, true, setup), "cdir/b.txt");
}

TEST(Completion, Arguments) {
  EXPECT_EQ(Offers({"demo-ctl", "record", "st"}), "start stop status");
  EXPECT_EQ(Offers({"demo-ctl", "record", "start", "st"}), "") << "one argument only";
  EXPECT_EQ(Offers({"demo-ctl", "move", "kn"}), "knee=");
  EXPECT_EQ(Offers({"demo-ctl", "move", "knee=1", "h"}), "hip=") << "it repeats";
}

TEST(Completion, WithoutSubcommands) {
  EXPECT_EQ(Offers({"demo-ctl", "--ra"}, false), "--rate");
  EXPECT_EQ(Offers({"demo-ctl", "s"}, false), "");
}

}  // namespace
}  // namespace robot_edge::cli
