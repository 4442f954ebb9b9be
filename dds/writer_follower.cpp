#include "dds/writer_follower.hpp"

#include <cstdio>

namespace robot_edge::dds {

std::string WriterFollower::Name(std::uint64_t writer) {
  char text[24];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(writer));
  return text;
}

WriterFollower::Decision WriterFollower::Offer(std::uint64_t writer, std::int64_t source_ns,
                                               bool followed_matched) {
  if (!followed_) {
    followed_ = writer;
    Decision d = Follow(source_ns);
    d.log = "rt/lowcmd: following writer " + Name(writer);
    return d;
  }
  if (writer == *followed_) return Follow(source_ns);
  if (followed_matched) return Ignore(writer);
  const std::uint64_t previous = *followed_;
  followed_ = writer;
  last_source_ns_ = 0;
  sequence_ = 0;
  named_ignored_.erase(writer);
  Decision d = Follow(source_ns);
  d.switched = true;
  d.log = "rt/lowcmd: writer " + Name(previous) + " went away; following writer " + Name(writer);
  return d;
}

WriterFollower::Decision WriterFollower::Follow(std::int64_t source_ns) {
  if (sequence_ == 0 || source_ns > last_source_ns_) {
    ++sequence_;
    if (source_ns > last_source_ns_) last_source_ns_ = source_ns;
  }
  Decision d;
  d.follow = true;
  d.sequence = sequence_;
  d.timestamp_us = source_ns > 0 ? static_cast<std::uint64_t>(source_ns / 1000) : 0;
  return d;
}

WriterFollower::Decision WriterFollower::Ignore(std::uint64_t writer) {
  ++ignored_samples_;
  Decision d;
  if (named_ignored_.size() < kMaxNamedIgnored && named_ignored_.insert(writer).second) {
    d.log = "rt/lowcmd: ignoring writer " + Name(writer) + ": following writer " +
            Name(*followed_) + " until it goes away";
  }
  return d;
}

}  // namespace robot_edge::dds
