// Where the dashboard's files are when the config does not say (live.web_root ""): the source
// tree's live/web for a program run from its build tree, else the installed copy
// (share/robot-edge/web).
#pragma once

#include <string>

namespace robot_edge::live {

std::string DefaultWebRoot();

}  // namespace robot_edge::live
