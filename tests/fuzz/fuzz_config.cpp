// Fuzz target: a configuration file, through the real parser (every section, duplicate keys,
// unknown keys) and every rule of Validate() and Warnings().
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "config/config.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace robot_edge;
  try {
    const config::Config c = config::ParseConfig(
        std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yaml");
    config::Validate(c);
    // Warnings() assumes a valid config (its joints' motors resolved), as at start-up.
    if (config::Validate(c).empty()) config::Warnings(c);
  } catch (const config::ConfigError&) {
  }
  return 0;
}
