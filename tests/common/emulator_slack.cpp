#include "emulator_slack.hpp"

#include <fstream>
#include <stdexcept>

namespace robot_edge::test {

std::vector<ConfigEdit> EmulatorSlackEdits(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the emulator's slack");
  std::vector<ConfigEdit> edits;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (line.empty() || line[0] == '#') continue;
    const auto tab = line.find('\t');
    if (tab == std::string::npos || tab == 0 || line.find('\t', tab + 1) != std::string::npos) {
      throw std::runtime_error(path + ":" + std::to_string(number) +
                               ": not \"text<TAB>replacement\": " + line);
    }
    edits.emplace_back(line.substr(0, tab), line.substr(tab + 1));
  }
  return edits;
}

std::string WithEmulatorSlack(std::string yaml, const std::vector<ConfigEdit>& edits) {
  for (const auto& [from, to] : edits) {
    for (auto at = yaml.find(from); at != std::string::npos; at = yaml.find(from, at + to.size()))
      yaml.replace(at, from.size(), to);
  }
  return yaml;
}

}  // namespace robot_edge::test
