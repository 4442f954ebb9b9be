// A client's byte stream -> ClientMessages, without the socket: the length-prefix decoder, then
// each message parsed into a protobuf arena on a block the reader keeps (no heap allocation per
// command while the message fits: measured in bench/, 0 instead of 8 to 524 per command).
// Session feeds it what its socket reads; bench/ and the tests feed it bytes directly.
//
// Threads: one owner (the API thread).
#pragma once

#include <google/protobuf/arena.h>

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "edge_api.pb.h"
#include "proto/framing.hpp"

namespace robot_edge::daemon {

class MessageReader {
 public:
  // A 64 KiB message (the API's largest) and its objects fit in the arena's first block.
  static constexpr std::size_t kArenaBlockBytes = 128 * 1024;

  // What Feed() found. kBadFrame and kUndecodable end the stream: error() says why.
  enum class Status { kOk, kStopped, kBadFrame, kUndecodable };

  // Appends `bytes` and calls on_message(const edge::ClientMessage&) for each whole message, in
  // order, until it returns false (kStopped). The message lives only during the call.
  template <typename OnMessage>
  Status Feed(std::span<const std::uint8_t> bytes, OnMessage&& on_message) {
    decoder_.Feed(bytes);
    std::span<const std::uint8_t> payload;
    proto::FrameDecoder::Status status;
    while ((status = decoder_.Next(&payload)) == proto::FrameDecoder::Status::kMessage) {
      google::protobuf::ArenaOptions options;
      options.initial_block = arena_block_.data();
      options.initial_block_size = arena_block_.size();
      google::protobuf::Arena arena(options);
      auto* message = google::protobuf::Arena::CreateMessage<edge::ClientMessage>(&arena);
      if (!message->ParseFromArray(payload.data(), static_cast<int>(payload.size()))) {
        error_ = "undecodable ClientMessage (" + std::to_string(payload.size()) + " bytes)";
        return Status::kUndecodable;
      }
      if (!on_message(static_cast<const edge::ClientMessage&>(*message))) return Status::kStopped;
    }
    if (status == proto::FrameDecoder::Status::kNeedMore) return Status::kOk;
    error_ = std::string("bad frame: ") + proto::ToString(status);
    return Status::kBadFrame;
  }

  const std::string& error() const { return error_; }
  // Forgets a partial frame and the error (a new stream); the arena block is kept.
  void Reset() {
    decoder_ = proto::FrameDecoder();
    error_.clear();
  }

 private:
  proto::FrameDecoder decoder_;
  std::vector<char> arena_block_ = std::vector<char>(kArenaBlockBytes);
  std::string error_;
};

}  // namespace robot_edge::daemon
