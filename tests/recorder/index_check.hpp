// Checks a closed file's summary against its data section, with our decoders only: the Footer
// and Summary Offsets point at the right groups, every Chunk Index points at its Chunk and its
// Message Index records, and every Message Index entry points at a Message with that log time.
// Returns "" when everything holds, else what did not.
#pragma once

#include <cstdint>
#include <span>
#include <string>

#include "recorder/mcap_format.hpp"

namespace robot_edge::recorder::test {

struct IndexFacts {
  mcap::Statistics statistics;
  std::size_t chunk_indexes = 0;
  std::size_t schemas = 0;   // in the summary
  std::size_t channels = 0;  // in the summary
  std::size_t metadata_indexes = 0;
  std::uint64_t indexed_messages = 0;  // entries of all Message Index records
};

std::string CheckIndex(std::span<const std::uint8_t> file, IndexFacts* facts);

}  // namespace robot_edge::recorder::test
