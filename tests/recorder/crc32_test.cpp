// CRC-32/IEEE against published check values, and its continuation property (the writer folds
// every write into one running CRC).
#include "recorder/crc32.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "test_util.hpp"

namespace robot_edge::recorder {
namespace {

using test::ToBytes;

TEST(Crc32, CheckValue) {
  EXPECT_EQ(Crc32(ToBytes("123456789")), 0xCBF43926u);  // the CRC catalogue's "check"
}

TEST(Crc32, KnownValues) {
  EXPECT_EQ(Crc32({}), 0u);
  EXPECT_EQ(Crc32(ToBytes("a")), 0xE8B7BE43u);
  EXPECT_EQ(Crc32(ToBytes("The quick brown fox jumps over the lazy dog")), 0x414FA339u);
  EXPECT_EQ(Crc32(std::vector<std::uint8_t>(32, 0)), 0x190A55ADu);
  EXPECT_EQ(Crc32(std::vector<std::uint8_t>(32, 0xFF)), 0xFF6CAB0Bu);
}

TEST(Crc32, ContinuesAcrossSplits) {
  std::vector<std::uint8_t> data(1000);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 31 + 7);
  const std::uint32_t whole = Crc32(data);
  for (std::size_t cut : {0u, 1u, 7u, 8u, 9u, 500u, 999u, 1000u}) {
    const std::span<const std::uint8_t> all(data);
    EXPECT_EQ(Crc32(all.subspan(cut), Crc32(all.first(cut))), whole) << cut;
  }
}

}  // namespace
}  // namespace robot_edge::recorder
