#include "live/web_root.hpp"

#include <filesystem>

namespace robot_edge::live {

std::string DefaultWebRoot() {
  const std::filesystem::path source(ROBOT_EDGE_SOURCE_WEB_DIR);
  if (std::filesystem::exists(source / "index.html")) return source.string();
  return ROBOT_EDGE_WEB_DIR;
}

}  // namespace robot_edge::live
