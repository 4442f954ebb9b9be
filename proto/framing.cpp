#include "proto/framing.hpp"

#include <google/protobuf/message_lite.h>

namespace robot_edge::proto {

int DecodeVarint(std::span<const std::uint8_t> bytes, std::uint64_t* value) {
  std::uint64_t result = 0;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    if (i >= kMaxVarintBytes) return -1;
    result |= static_cast<std::uint64_t>(bytes[i] & 0x7F) << (7 * i);
    if ((bytes[i] & 0x80) == 0) {
      *value = result;
      return static_cast<int>(i + 1);
    }
  }
  return bytes.size() >= kMaxVarintBytes ? -1 : 0;
}

void AppendVarint(std::uint64_t value, std::string* out) {
  while (value >= 0x80) {
    out->push_back(static_cast<char>((value & 0x7F) | 0x80));
    value >>= 7;
  }
  out->push_back(static_cast<char>(value));
}

bool AppendDelimited(const google::protobuf::MessageLite& message, std::string* out,
                     std::size_t max_message_bytes) {
  const std::size_t size = message.ByteSizeLong();
  if (size > max_message_bytes) return false;
  AppendVarint(size, out);
  const std::size_t offset = out->size();
  out->resize(offset + size);
  message.SerializeWithCachedSizesToArray(reinterpret_cast<std::uint8_t*>(out->data()) + offset);
  return true;
}

FrameDecoder::FrameDecoder(std::size_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

void FrameDecoder::Feed(std::span<const std::uint8_t> bytes) {
  if (error_ != Status::kNeedMore) return;  // the stream is already unusable
  Compact();
  buffer_.insert(buffer_.end(), bytes.begin(), bytes.end());
}

void FrameDecoder::Feed(std::string_view bytes) {
  Feed(std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

FrameDecoder::Status FrameDecoder::Next(std::span<const std::uint8_t>* payload) {
  if (error_ != Status::kNeedMore) return error_;
  const std::span<const std::uint8_t> pending(buffer_.data() + read_pos_,
                                              buffer_.size() - read_pos_);
  std::uint64_t length = 0;
  const int prefix = DecodeVarint(pending, &length);
  if (prefix < 0) return error_ = Status::kBadLength;
  if (prefix == 0) return Status::kNeedMore;
  if (length > max_message_bytes_) {
    announced_length_ = length;
    return error_ = Status::kOversize;
  }
  if (pending.size() < prefix + length) return Status::kNeedMore;
  *payload = pending.subspan(prefix, length);
  read_pos_ += prefix + length;
  return Status::kMessage;
}

bool FrameDecoder::Ready() const {
  if (error_ != Status::kNeedMore) return true;
  const std::span<const std::uint8_t> pending(buffer_.data() + read_pos_,
                                              buffer_.size() - read_pos_);
  std::uint64_t length = 0;
  const int prefix = DecodeVarint(pending, &length);
  if (prefix <= 0) return prefix < 0;  // a bad prefix is an error Next() returns at once
  return length > max_message_bytes_ || pending.size() >= prefix + length;
}

void FrameDecoder::Compact() {
  if (read_pos_ == 0) return;
  buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(read_pos_));
  read_pos_ = 0;
}

const char* ToString(FrameDecoder::Status status) {
  switch (status) {
    case FrameDecoder::Status::kNeedMore: return "need more bytes";
    case FrameDecoder::Status::kMessage: return "message";
    case FrameDecoder::Status::kOversize: return "message longer than the 64 KiB limit";
    case FrameDecoder::Status::kBadLength: return "malformed length prefix";
  }
  return "?";
}

}  // namespace robot_edge::proto
