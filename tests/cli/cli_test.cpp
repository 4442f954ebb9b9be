// cli::Parse and cli::Help on the demo spec (demo_spec.hpp): each accepted form, each error
// message, and the help's shape (what help2man and the programs' tests read).
#include <gtest/gtest.h>

#include "cli/cli.hpp"
#include "tests/cli/demo_spec.hpp"

namespace robot_edge::cli {
namespace {

using test::DemoSpec;
using test::Seen;

Parsed ParseDemo(Seen* seen, std::vector<std::string> args, bool subcommands = true) {
  return Parse(DemoSpec(seen, subcommands), args);
}

std::string ErrorOf(std::vector<std::string> args, bool subcommands = true) {
  Seen seen;
  try {
    ParseDemo(&seen, std::move(args), subcommands);
  } catch (const UsageError& e) {
    return e.what();
  }
  return "(accepted)";
}

TEST(Parse, ValueAsNextWordOrAfterEquals) {
  Seen seen;
  const Parsed parsed = ParseDemo(&seen, {"--socket", "/a.sock", "move", "--rate=20", "knee=1"});
  EXPECT_EQ(seen.socket, "/a.sock");
  EXPECT_EQ(seen.rate, 20);
  EXPECT_EQ(parsed.subcommand, "move");
  EXPECT_EQ(parsed.arguments, std::vector<std::string>{"knee=1"});
  EXPECT_EQ(seen.selected, "move");
}

TEST(Parse, AppliesInCommandLineOrderAfterSelect) {
  Seen seen;
  ParseDemo(&seen, {"--pose", "zero", "status", "--kp=3", "--pose=stand"});
  EXPECT_EQ(seen.applied, (std::vector<std::string>{"--pose=zero", "--kp=3", "--pose=stand"}));
  EXPECT_EQ(seen.selected, "status");
}

TEST(Parse, NegativeNumbersDashAndDoubleDashAreArguments) {
  Seen seen;
  const Parsed parsed = ParseDemo(&seen, {"move", "-0.5", "-.5", "-", "--", "--json"});
  EXPECT_EQ(parsed.arguments, (std::vector<std::string>{"-0.5", "-.5", "-", "--json"}));
  EXPECT_FALSE(seen.json) << "after --, --json is an argument";
}

TEST(Parse, HelpFirstChecksNothingElse) {
  Seen seen;
  EXPECT_TRUE(ParseDemo(&seen, {"-h", "bogus", "--rate", "x"}).first);
  EXPECT_TRUE(seen.help);
  Seen word;
  EXPECT_TRUE(ParseDemo(&word, {"help"}).first) << "the word help is --help";
  EXPECT_TRUE(word.help);
}

TEST(Parse, ErrorMessages) {
  EXPECT_EQ(ErrorOf({"--bogus", "status"}), "unknown option '--bogus'");
  EXPECT_EQ(ErrorOf({"status", "--socket"}), "--socket needs a value");
  EXPECT_EQ(ErrorOf({"status", "--json=1"}), "--json takes no value");
  EXPECT_EQ(ErrorOf({"--json"}), "no command given");
  EXPECT_EQ(ErrorOf({"fly"}), "unknown command 'fly'");
  EXPECT_EQ(ErrorOf({"status", "--rate", "5"}), "--rate does not apply to 'status'");
  EXPECT_EQ(ErrorOf({"move", "--rate", "fast"}), "--rate: 'fast' is not a number of Hz");
  EXPECT_EQ(ErrorOf({"stray"}, false), "unexpected argument 'stray'");
  EXPECT_EQ(ErrorOf({"-5"}, false), "unknown option '-5'") << "no arguments: not a number";
  EXPECT_EQ(ErrorOf({"--", "x"}, false), "unknown option '--'");
}

TEST(Parse, HiddenOptionsParse) {
  Seen seen;
  ParseDemo(&seen, {"--secret"}, false);
  EXPECT_EQ(seen.applied, std::vector<std::string>{"--secret="});
}

TEST(Values, NumbersAndTheirErrors) {
  EXPECT_EQ(ParseNumber("--t", "2.5", "seconds"), 2.5);
  EXPECT_THROW(ParseNumber("--t", "inf", "s"), UsageError);
  EXPECT_THROW(ParseNumber("--t", "", "s"), UsageError);
  try {
    ParseNumber("--t", "2x", "");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--t: '2x' is not a number");
  }
  EXPECT_EQ(ParseWhole("--n", "7", 1, 9), 7u);
  try {
    ParseWhole("--n", "10", 1, 9);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--n: '10' is not a whole number 1..9");
  }
  EXPECT_EQ(ParseCount("--c", "0"), 0u);
  try {
    ParseCount("--c", "-1");
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "--c: '-1' is not a whole number >= 0");
  }
}

TEST(Help, Shape) {
  Seen seen;
  const std::string expected = R"(Usage: demo-ctl [OPTIONS] COMMAND

Demonstrates the layer.

Commands:
  status              one line
  move JOINT=RAD...   a move
                      over two lines

Recording:
  record start|stop|status  recording

Connection options:
  --socket PATH       the socket
  --model FILE.xml    a model
  --joints A,B,...    joints
  --json              JSON lines

Command options:
  --rate HZ           move: packets per second
                      (default 50)
  --calibrated-at RAD
                      long label
  --pose zero|stand   a pose
  --kp N·m/rad        stiffness
  -h, --help          print this text

Exit status:
  0  done
)";
  EXPECT_EQ(Help(DemoSpec(&seen)), expected);
}

TEST(Help, ColumnAndUnknownWordOfTheProgram) {
  Seen seen;
  Spec spec = DemoSpec(&seen, false);
  spec.help_column = 20;
  spec.unknown = "unknown argument";
  const std::string help = Help(spec);
  EXPECT_NE(help.find("\n  --rate HZ         move: packets per second\n"
                      "                    (default 50)\n"),
            std::string::npos)
      << help;
  EXPECT_NE(help.find("\n  --pose zero|stand\n                    a pose\n"), std::string::npos)
      << "a label that reaches the column puts the help on the next line";
  const std::vector<std::string> args = {"--frobnicate"};
  try {
    Parse(spec, args);
    ADD_FAILURE();
  } catch (const UsageError& e) {
    EXPECT_STREQ(e.what(), "unknown argument '--frobnicate'");
  }
}

TEST(Help, ALongSubcommandKeepsItsHelpOnItsLineUnlessItStartsWithANewline) {
  Spec spec;
  spec.program = "p";
  spec.synopsis = "COMMAND";
  spec.commands = {{"Commands:",
                    {Command("compare", "RECORDED REPLAYED", "\nhow closely"),
                     Command("check-direction", "JOINT", "jog it")}}};
  EXPECT_EQ(Help(spec),
            "Usage: p COMMAND\n\n\nCommands:\n"
            "  compare RECORDED REPLAYED\n                      how closely\n"
            "  check-direction JOINT  jog it\n\n");
}

TEST(Completion, OnlyTheExactHiddenOption) {
  const std::vector<std::string> yes = {"--bash-completion"};
  const std::vector<std::string> no = {"--bash-completion", "x"};
  EXPECT_TRUE(WantsCompletion(yes));
  EXPECT_FALSE(WantsCompletion(no));
}

}  // namespace
}  // namespace robot_edge::cli
