// The emulator's slack: the timeouts relaxed when robot-edged runs under user-mode-linux, read
// from scripts/emulator-slack.tsv (the one list that the C++ and Python rigs, the bench's rig and
// the demo scripts share). Test and benchmark support only.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace robot_edge::test {

using ConfigEdit = std::pair<std::string, std::string>;  // (text in the config, what it becomes)

// The edits of `path` (default: the source tree's scripts/emulator-slack.tsv), in file order.
// Throws std::runtime_error naming the file and line when it cannot be read or a line is not
// "text<TAB>replacement".
std::vector<ConfigEdit> EmulatorSlackEdits(const std::string& path = ROBOT_EDGE_EMULATOR_SLACK);

// `yaml` with every edit applied to every occurrence; a text `yaml` lacks is left alone (the
// policy's edits in a config without a policy).
std::string WithEmulatorSlack(std::string yaml,
                              const std::vector<ConfigEdit>& edits = EmulatorSlackEdits());

}  // namespace robot_edge::test
