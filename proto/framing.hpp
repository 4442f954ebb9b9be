// Stream framing of the local API: each message is preceded by its length in bytes as a
// protobuf base-128 varint (protobuf's "delimited" format).
//
// The decoder is incremental and does no I/O (the model: the request parser of asio's HTTP server
// example): feed it whatever bytes arrived, then take whole messages out one by one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace google::protobuf {
class MessageLite;
}

namespace robot_edge::proto {

// Largest message the API accepts, in bytes (length prefix excluded).
inline constexpr std::size_t kMaxMessageBytes = 64 * 1024;

// Longest varint accepted as a length: 5 bytes carry 32 bits.
inline constexpr std::size_t kMaxVarintBytes = 5;

class FrameDecoder {
 public:
  enum class Status {
    kNeedMore,   // no whole message buffered yet
    kMessage,    // *payload holds the next message
    kOversize,   // the next message is longer than the limit: the stream is unusable
    kBadLength,  // the length prefix is not a valid varint: the stream is unusable
  };

  explicit FrameDecoder(std::size_t max_message_bytes = kMaxMessageBytes);

  // Appends received bytes. Never fails; errors surface from Next().
  void Feed(std::span<const std::uint8_t> bytes);
  void Feed(std::string_view bytes);

  // Takes the next whole message out of the buffer. The view stays valid until the next call to
  // Feed() or Next(). After kOversize or kBadLength every later call returns the same error.
  Status Next(std::span<const std::uint8_t>* payload);

  // Whether Next() would now return a message or an error, not kNeedMore: what a reader checks
  // before it waits on its socket (half a message buffered is a reason to wait, not to spin).
  bool Ready() const;

  // Length the oversize message announced (valid after kOversize).
  std::uint64_t announced_length() const { return announced_length_; }
  std::size_t buffered_bytes() const { return buffer_.size() - read_pos_; }

 private:
  void Compact();

  std::size_t max_message_bytes_;
  std::vector<std::uint8_t> buffer_;
  std::size_t read_pos_ = 0;
  std::uint64_t announced_length_ = 0;
  Status error_ = Status::kNeedMore;  // sticky kOversize / kBadLength
};

// Decodes a varint at the start of `bytes`. Returns the number of bytes it used, 0 when more bytes
// are needed, or -1 when it is longer than kMaxVarintBytes.
int DecodeVarint(std::span<const std::uint8_t> bytes, std::uint64_t* value);

// Appends `message` with its length prefix to `out`. Returns false if it exceeds the limit.
bool AppendDelimited(const google::protobuf::MessageLite& message, std::string* out,
                     std::size_t max_message_bytes = kMaxMessageBytes);

// Appends the varint encoding of `value` to `out`.
void AppendVarint(std::uint64_t value, std::string* out);

const char* ToString(FrameDecoder::Status status);

}  // namespace robot_edge::proto
