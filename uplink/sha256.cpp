#include "uplink/sha256.hpp"

#include <openssl/evp.h>
#include <unistd.h>

#include <memory>
#include <vector>

namespace robot_edge::uplink {

namespace {

struct Digest {
  Digest() : ctx(EVP_MD_CTX_new(), EVP_MD_CTX_free) {
    EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr);
  }
  void Add(const void* data, std::size_t size) { EVP_DigestUpdate(ctx.get(), data, size); }
  Sha256 Finish() {
    Sha256 out{};
    unsigned size = 0;
    EVP_DigestFinal_ex(ctx.get(), out.data(), &size);
    return out;
  }
  std::unique_ptr<EVP_MD_CTX, void (*)(EVP_MD_CTX*)> ctx;
};

}  // namespace

Sha256 Sha256Of(std::string_view bytes) {
  Digest d;
  d.Add(bytes.data(), bytes.size());
  return d.Finish();
}

std::optional<Sha256> Sha256OfFile(int fd, std::uint64_t bytes) {
  Digest d;
  std::vector<char> buffer(1 << 16);
  std::uint64_t offset = 0;
  while (offset < bytes) {
    const std::size_t want =
        static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), bytes - offset));
    const ssize_t got = ::pread(fd, buffer.data(), want, static_cast<off_t>(offset));
    if (got <= 0) return std::nullopt;
    d.Add(buffer.data(), static_cast<std::size_t>(got));
    offset += static_cast<std::uint64_t>(got);
  }
  return d.Finish();
}

std::string Hex(const Sha256& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (const std::uint8_t b : digest) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

std::string Base64(const Sha256& digest) {
  unsigned char out[48] = {};
  const int n = EVP_EncodeBlock(out, digest.data(), static_cast<int>(digest.size()));
  return std::string(reinterpret_cast<const char*>(out), static_cast<std::size_t>(n));
}

}  // namespace robot_edge::uplink
