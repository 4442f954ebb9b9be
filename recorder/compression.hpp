// Chunk compression for MCAP: zstd, LZ4 (the LZ4 *frame* format, which the spec's "lz4" means and
// the Foxglove readers decode) or none. Both classes keep their library context and buffers from
// call to call. Once its buffer has grown to the largest chunk seen, ChunkCompressor allocates
// nothing, malloc included (zstd: its kept context; LZ4 below level 3: LZ4F_compressFrame's
// context on the stack, ~16 KiB), except LZ4-HC (levels 3 and more), which mallocs its state for
// every chunk. Not thread-safe: one instance per thread.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct ZSTD_CCtx_s;
struct ZSTD_DCtx_s;
struct LZ4F_dctx_s;

namespace robot_edge::recorder {

enum class Compression : std::uint8_t { kNone, kZstd, kLz4 };

// The Chunk record's `compression` string: "", "zstd" or "lz4".
std::string_view CompressionName(Compression compression);

class ChunkCompressor {
 public:
  // `level`: zstd level (1..19; negative levels trade ratio for speed) or LZ4 frame level (0 =
  // the fast default; 3 and more select LZ4-HC). `reserve_bytes`: the chunk size expected, so that
  // the output buffer is allocated here and not on the first chunk.
  ChunkCompressor(Compression compression, int level, std::size_t reserve_bytes);
  ~ChunkCompressor();
  ChunkCompressor(const ChunkCompressor&) = delete;
  ChunkCompressor& operator=(const ChunkCompressor&) = delete;

  // Compresses `in` whole. `*out` is valid until the next call; for kNone it is `in` itself.
  // False only when the library fails (error() says why).
  bool Compress(std::span<const std::uint8_t> in, std::span<const std::uint8_t>* out);

  Compression compression() const { return compression_; }
  const std::string& error() const { return error_; }

 private:
  void Reserve(std::size_t bytes);

  Compression compression_;
  int level_;
  ZSTD_CCtx_s* zstd_ = nullptr;
  std::vector<std::uint8_t> buffer_;  // size() == capacity: the compressed bytes' room
  std::string error_;
};

class ChunkDecompressor {
 public:
  ChunkDecompressor();
  ~ChunkDecompressor();
  ChunkDecompressor(const ChunkDecompressor&) = delete;
  ChunkDecompressor& operator=(const ChunkDecompressor&) = delete;

  // Decompresses `in`, stored with `compression` ("", "zstd", "lz4"), into `*out`, resized to
  // exactly `uncompressed_size` (the caller bounds it). False with `*error` for an unknown
  // compression, a corrupt stream, or a stream that does not decode to exactly that many bytes.
  bool Decompress(std::string_view compression, std::span<const std::uint8_t> in,
                  std::uint64_t uncompressed_size, std::vector<std::uint8_t>* out,
                  std::string* error);

 private:
  bool Zstd(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::string* error);
  bool Lz4(std::span<const std::uint8_t> in, std::span<std::uint8_t> out, std::string* error);

  ZSTD_DCtx_s* zstd_ = nullptr;
  LZ4F_dctx_s* lz4_ = nullptr;
};

}  // namespace robot_edge::recorder
