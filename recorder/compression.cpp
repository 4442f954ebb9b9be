#include "recorder/compression.hpp"

#include <lz4frame.h>
#include <zstd.h>

#include <algorithm>

namespace robot_edge::recorder {
namespace {

LZ4F_preferences_t Lz4Preferences(int level, std::size_t content_size) {
  LZ4F_preferences_t prefs{};
  prefs.compressionLevel = level;
  prefs.frameInfo.contentSize = content_size;  // in the frame header: readers can check it
  prefs.autoFlush = 1;
  return prefs;
}

}  // namespace

std::string_view CompressionName(Compression compression) {
  switch (compression) {
    case Compression::kZstd: return "zstd";
    case Compression::kLz4: return "lz4";
    case Compression::kNone: break;
  }
  return "";
}

ChunkCompressor::ChunkCompressor(Compression compression, int level, std::size_t reserve_bytes)
    : compression_(compression), level_(level) {
  if (compression_ == Compression::kZstd) {
    zstd_ = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(zstd_, ZSTD_c_compressionLevel, level_);
  }
  Reserve(reserve_bytes);
}

ChunkCompressor::~ChunkCompressor() { ZSTD_freeCCtx(zstd_); }

void ChunkCompressor::Reserve(std::size_t bytes) {
  std::size_t bound = 0;
  if (compression_ == Compression::kZstd) {
    bound = ZSTD_compressBound(bytes);
  } else if (compression_ == Compression::kLz4) {
    const LZ4F_preferences_t prefs = Lz4Preferences(level_, bytes);
    bound = LZ4F_compressFrameBound(bytes, &prefs);
  }
  if (bound > buffer_.size()) buffer_.resize(std::max(bound, buffer_.size() * 3 / 2));
}

bool ChunkCompressor::Compress(std::span<const std::uint8_t> in,
                               std::span<const std::uint8_t>* out) {
  if (compression_ == Compression::kNone) {
    *out = in;
    return true;
  }
  Reserve(in.size());
  std::size_t n = 0;
  if (compression_ == Compression::kZstd) {
    n = ZSTD_compress2(zstd_, buffer_.data(), buffer_.size(), in.data(), in.size());
    if (ZSTD_isError(n)) {
      error_ = std::string("zstd: ") + ZSTD_getErrorName(n);
      ZSTD_CCtx_reset(zstd_, ZSTD_reset_session_only);
      return false;
    }
  } else {
    // LZ4F_compressFrame keeps its context on the stack (~16 KiB) for levels below LZ4-HC: no
    // allocation, where LZ4F_compressBegin on a kept context mallocs on every frame.
    const LZ4F_preferences_t prefs = Lz4Preferences(level_, in.size());
    n = LZ4F_compressFrame(buffer_.data(), buffer_.size(), in.data(), in.size(), &prefs);
    if (LZ4F_isError(n)) {
      error_ = std::string("lz4: ") + LZ4F_getErrorName(n);
      return false;
    }
  }
  *out = std::span<const std::uint8_t>(buffer_.data(), n);
  return true;
}

ChunkDecompressor::ChunkDecompressor() {
  zstd_ = ZSTD_createDCtx();
  LZ4F_createDecompressionContext(&lz4_, LZ4F_VERSION);
}

ChunkDecompressor::~ChunkDecompressor() {
  ZSTD_freeDCtx(zstd_);
  LZ4F_freeDecompressionContext(lz4_);
}

bool ChunkDecompressor::Decompress(std::string_view compression, std::span<const std::uint8_t> in,
                                   std::uint64_t uncompressed_size, std::vector<std::uint8_t>* out,
                                   std::string* error) {
  if (compression.empty()) {
    if (in.size() != uncompressed_size) {
      *error = "uncompressed chunk holds " + std::to_string(in.size()) +
               " bytes, its header says " + std::to_string(uncompressed_size);
      return false;
    }
    out->assign(in.begin(), in.end());
    return true;
  }
  if (compression != "zstd" && compression != "lz4") {
    *error = "unsupported compression \"" + std::string(compression) + "\"";
    return false;
  }
  out->resize(static_cast<std::size_t>(uncompressed_size));
  std::uint8_t none = 0;  // a valid pointer for an empty output
  std::span<std::uint8_t> dst =
      out->empty() ? std::span<std::uint8_t>(&none, 0) : std::span<std::uint8_t>(*out);
  return compression == "zstd" ? Zstd(in, dst, error) : Lz4(in, dst, error);
}

bool ChunkDecompressor::Zstd(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                             std::string* error) {
  // Decodes every frame of `in`; fails if they would overflow `out`.
  const std::size_t n = ZSTD_decompressDCtx(zstd_, out.data(), out.size(), in.data(), in.size());
  if (ZSTD_isError(n)) {
    *error = std::string("zstd: ") + ZSTD_getErrorName(n);
    ZSTD_DCtx_reset(zstd_, ZSTD_reset_session_only);
    return false;
  }
  if (n != out.size()) {
    *error = "zstd data decodes to " + std::to_string(n) + " bytes, the chunk header says " +
             std::to_string(out.size());
    return false;
  }
  return true;
}

bool ChunkDecompressor::Lz4(std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                            std::string* error) {
  LZ4F_resetDecompressionContext(lz4_);
  std::size_t in_pos = 0;
  std::size_t out_pos = 0;
  std::size_t hint = 1;  // LZ4F_decompress returns 0 when a frame is complete
  while (in_pos < in.size()) {
    std::size_t in_n = in.size() - in_pos;
    std::size_t out_n = out.size() - out_pos;
    hint = LZ4F_decompress(lz4_, out.data() + out_pos, &out_n, in.data() + in_pos, &in_n, nullptr);
    if (LZ4F_isError(hint)) {
      *error = std::string("lz4: ") + LZ4F_getErrorName(hint);
      return false;
    }
    if (in_n == 0 && out_n == 0) {
      *error = "lz4 data decodes to more than the chunk header's " + std::to_string(out.size()) +
               " bytes";
      return false;
    }
    in_pos += in_n;
    out_pos += out_n;
  }
  if (hint != 0) {
    *error = "lz4 frame ends early";
    return false;
  }
  if (out_pos != out.size()) {
    *error = "lz4 data decodes to " + std::to_string(out_pos) + " bytes, the chunk header says " +
             std::to_string(out.size());
    return false;
  }
  return true;
}

}  // namespace robot_edge::recorder
