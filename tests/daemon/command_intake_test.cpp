// The API thread's command path without sockets: arbitration, freshness, validation and the
// hand-off to the control thread's queue (whose side the test plays).
#include "daemon/api/command_intake.hpp"

#include <gtest/gtest.h>

#include "published_view.hpp"

namespace robot_edge::daemon {
namespace {

constexpr std::int64_t kMs = 1000;
constexpr std::uint64_t kClientClock = 1'800'000'000'000'000ull;

using Kind = CommandIntake::Outcome::Kind;

class Intake : public testing::Test {
 protected:
  Intake()
      : config_(config::LoadConfig(ROBOT_EDGE_DEFAULT_CONFIG)),
        channels_(config_, 4, 64),
        intake_(config_, &channels_, [this] { return wall_us_; }) {
    // The relative rules (stalls of seconds) are tested here, so the wall clock rule is loosened
    // to 10 min; an hour-old command still meets it.
    config_.api.max_clock_offset_ms = 600'000;
    PublishView(sm::Mode::kDamp);
  }

  void PublishView(sm::Mode mode, bool latched = false, const char* latch_holder = "") {
    test::PublishView(&channels_, mode, latched, latch_holder);
  }

  // A STAND from `client`, sent at `sent_us` (our clock), received at `now_us`.
  CommandIntake::Outcome Stand(const CommandIntake::Client& client, std::uint32_t sequence,
                               std::int64_t now_us, std::int64_t sent_us) {
    edge::CloudCommand c;
    c.set_sequence(sequence);
    c.set_timestamp_us(kClientClock + static_cast<std::uint64_t>(sent_us));
    c.mutable_mode()->set_mode(edge::MODE_STAND);
    wall_us_ = static_cast<std::int64_t>(kClientClock) + now_us;  // the clocks agree
    return intake_.Submit(client, c, now_us);
  }
  CommandIntake::Outcome Damp(const CommandIntake::Client& client, std::int64_t now_us) {
    edge::CloudCommand c;
    c.mutable_mode()->set_mode(edge::MODE_DAMP);  // no timestamp, no sequence: still accepted
    return intake_.Submit(client, c, now_us);
  }
  std::size_t Drain() {
    std::size_t n = 0;
    while (CommandSlot* slot = channels_.commands.Receive()) {
      last_ = slot->command;
      channels_.commands.Release(slot);
      ++n;
    }
    return n;
  }

  config::Config config_;
  ControlChannels channels_;
  std::int64_t wall_us_ = static_cast<std::int64_t>(kClientClock);  // robot-edged's wall clock
  CommandIntake intake_;
  sm::Command last_;
  const CommandIntake::Client cloud_{1, "cloud", true, ""};
  const CommandIntake::Client observer_{2, "", false, ""};
};

// C1 of issue 38: an hour-old STAND (retained on a broker, queued while a link was down) as the
// first command of a new connection is dropped, says why, and takes no control.
TEST_F(Intake, AnHourOldFirstCommandIsDroppedAndTakesNoControl) {
  const std::int64_t now = 5000 * kMs;
  const auto out = Stand(cloud_, 1, now, now - 3600 * 1000 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_EQ(out.reason, sm::Reason::kCommandClockOffset);
  ASSERT_TRUE(out.error);
  EXPECT_EQ(out.error->code(), "COMMAND_CLOCK_OFFSET");
  EXPECT_NE(out.error->message().find("3600000 ms behind"), std::string::npos)
      << out.error->message();
  EXPECT_FALSE(out.change);
  EXPECT_EQ(intake_.arbiter().holder(), 0u) << "a dropped command takes no control";
  EXPECT_EQ(Drain(), 0u);
  EXPECT_EQ(Stand(cloud_, 2, now + kMs, now).kind, Kind::kQueued) << "a fresh one still runs";
}

// Minor finding of issue 38: a command robot-edged drops takes no control, here an empty one
// from 'ble', which would override 'cloud' if it were accepted.
TEST_F(Intake, ACommandDroppedByValidationTakesNoControl) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  ASSERT_EQ(intake_.arbiter().current(), "cloud");
  const CommandIntake::Client ble{3, "ble", true, ""};
  edge::CloudCommand empty;
  empty.set_sequence(1);
  empty.set_timestamp_us(kClientClock + static_cast<std::uint64_t>(10 * kMs));
  wall_us_ = static_cast<std::int64_t>(kClientClock) + 10 * kMs;
  const auto out = intake_.Submit(ble, empty, 10 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_FALSE(out.change);
  EXPECT_EQ(intake_.arbiter().current(), "cloud");
  EXPECT_EQ(Drain(), 0u) << "no stop-walking either";
}

// M1 of issue 38: a latching DAMP records the controller that held control then.
TEST_F(Intake, ALatchingDampRecordsWhoHeldControl) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  EXPECT_STREQ(last_.holder.data(), "cloud");
  Damp(observer_, 10 * kMs);
  ASSERT_EQ(Drain(), 1u);
  EXPECT_TRUE(last_.latches);
  EXPECT_STREQ(last_.holder.data(), "cloud");
}

TEST_F(Intake, AFreshCommandIsQueuedWithItsEstimatedSendTime) {
  Stand(cloud_, 1, 0, 0);  // the quickest delivery: 0 ms
  Drain();
  const auto out = Stand(cloud_, 2, 1000 * kMs, 990 * kMs);
  EXPECT_EQ(out.kind, Kind::kQueued);
  EXPECT_FALSE(out.error);
  ASSERT_EQ(Drain(), 1u);
  EXPECT_EQ(last_.kind, sm::CommandKind::kMode);
  EXPECT_EQ(last_.sequence, 2u);
  EXPECT_EQ(last_.received_us, 1000 * kMs);
  EXPECT_NEAR(last_.sent_us, 990 * kMs, kMs) << "within the drift allowance, 1 ms per s";
  EXPECT_EQ(last_.source, sm::CommandSource::kClient);
}

TEST_F(Intake, TheFirstDropOfABurstIsReportedOnceAndEachIsCounted) {
  Stand(cloud_, 1, 0, 0);
  const auto first = Stand(cloud_, 2, 3000 * kMs, 0);  // 3 s late
  EXPECT_EQ(first.kind, Kind::kDropped);
  EXPECT_EQ(first.reason, sm::Reason::kCommandStale);
  ASSERT_TRUE(first.error);
  EXPECT_EQ(first.error->code(), "COMMAND_STALE");
  EXPECT_EQ(first.error->subsystem(), edge::SUBSYSTEM_CLOUD);
  EXPECT_NE(first.error->message().find("2997 ms later than its quickest"), std::string::npos)
      << first.error->message();
  for (std::uint32_t s = 3; s < 10; ++s) {
    const auto next = Stand(cloud_, s, 3000 * kMs, 20 * kMs * s);
    EXPECT_EQ(next.reason, sm::Reason::kCommandStale);
    EXPECT_FALSE(next.error) << "one error per burst";
  }
  EXPECT_EQ(intake_.counters()[sm::Reason::kCommandStale], 8u);
  // A replay of the last accepted command is a new burst (another reason): reported.
  const auto replay = Stand(cloud_, 1, 3001 * kMs, 3001 * kMs);
  EXPECT_EQ(replay.reason, sm::Reason::kSequenceNotIncreasing);
  ASSERT_TRUE(replay.error);
  EXPECT_EQ(replay.error->code(), "COMMAND_OUT_OF_ORDER");
  // A fresh one ends the burst; the next stale one is reported again.
  EXPECT_EQ(Stand(cloud_, 20, 3002 * kMs, 3002 * kMs).kind, Kind::kQueued);
  EXPECT_TRUE(Stand(cloud_, 21, 6000 * kMs, 3003 * kMs).error);
}

TEST_F(Intake, DampIsAcceptedFromAnObserverWithoutTimestampOrSequence) {
  const auto out = Damp(observer_, 0);
  EXPECT_EQ(out.kind, Kind::kQueued);
  ASSERT_EQ(Drain(), 1u);
  EXPECT_EQ(last_.mode, sm::ModeRequest::kDamp);
}

TEST_F(Intake, DampTakesTheMailboxWhenThePipeIsFull) {
  for (std::uint32_t s = 1; s <= 4; ++s) EXPECT_EQ(Stand(cloud_, s, s, s).kind, Kind::kQueued);
  const auto full = Stand(cloud_, 5, 5, 5);
  EXPECT_EQ(full.reason, sm::Reason::kQueueFull);
  const auto damp = Damp(cloud_, 6);
  EXPECT_EQ(damp.kind, Kind::kAccepted);
  EXPECT_EQ(channels_.urgent.load() & kUrgentDamp, kUrgentDamp);
}

TEST_F(Intake, OnlyTheControllerCommands) {
  EXPECT_EQ(Stand(cloud_, 1, 0, 0).kind, Kind::kQueued);
  const auto other = Stand(observer_, 1, 1, 1);
  EXPECT_EQ(other.reason, sm::Reason::kNotController);
  EXPECT_EQ(intake_.counters()[sm::Reason::kNotController], 1u);
}

TEST_F(Intake, TheControllerLeavingStopsWalking) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  const auto change = intake_.Disconnect(cloud_.id, 50 * kMs);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->reason, "disconnect");
  ASSERT_EQ(Drain(), 1u);
  EXPECT_EQ(last_.kind, sm::CommandKind::kStopWalking);
  EXPECT_EQ(last_.source, sm::CommandSource::kDaemon);
  EXPECT_FALSE(intake_.Disconnect(observer_.id, 60 * kMs)) << "not the controller";
}

TEST_F(Intake, AReconnectedClientStartsANewSequence) {
  Stand(cloud_, 100, 0, 0);
  intake_.Disconnect(cloud_.id, kMs);
  const CommandIntake::Client again{3, "cloud", true, ""};
  EXPECT_EQ(Stand(again, 1, 2 * kMs, 2 * kMs).kind, Kind::kQueued);
}

TEST_F(Intake, AnObserversDampLatchesAndNamesItsSender) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  const CommandIntake::Client observer{2, "", false, "unix pid 42 uid 1000"};
  Damp(observer, kMs);
  ASSERT_EQ(Drain(), 1u);
  EXPECT_TRUE(last_.latches);
  EXPECT_FALSE(last_.from_controller);
  EXPECT_STREQ(last_.sender.data(), "an observer (client 2, unix pid 42 uid 1000)");
  // The controller's own DAMP does not latch; its commands are marked as the controller's.
  Damp(cloud_, 2 * kMs);
  ASSERT_EQ(Drain(), 1u);
  EXPECT_FALSE(last_.latches);
  EXPECT_TRUE(last_.from_controller);
}

TEST_F(Intake, AnObserversDampTakesTheLatchingMailboxWhenThePipeIsFull) {
  for (std::uint32_t s = 1; s <= 4; ++s) Stand(cloud_, s, s, s);
  EXPECT_EQ(Damp(observer_, 6).kind, Kind::kAccepted);
  EXPECT_EQ(channels_.urgent.load() & kUrgentLatchingDamp, kUrgentLatchingDamp);
  EXPECT_EQ(channels_.urgent.load() & kUrgentDamp, 0);
}

TEST_F(Intake, ControlReleasedByTheIdleTimeoutStopsWalking) {
  config_.api.walking_silence_ms = 0;  // only the release
  Stand(cloud_, 1, 0, 0);
  Drain();
  const std::int64_t idle_us = config_.api.controller_idle_timeout_ms * kMs;
  EXPECT_FALSE(intake_.CheckIdle(idle_us - kMs));
  EXPECT_EQ(Drain(), 0u);
  const auto change = intake_.CheckIdle(idle_us);
  ASSERT_TRUE(change);
  EXPECT_EQ(change->reason, "timeout");
  ASSERT_EQ(Drain(), 1u);
  EXPECT_EQ(last_.kind, sm::CommandKind::kStopWalking);
}

TEST_F(Intake, AnOverrideStopsTheFormerControllersWalkBeforeTheNewCommand) {
  const CommandIntake::Client ble{5, "ble", true, ""};  // higher priority than cloud
  Stand(cloud_, 1, 0, 0);
  Drain();
  ASSERT_EQ(Stand(ble, 1, kMs, kMs).change->reason, "override");
  std::vector<sm::CommandKind> kinds;
  while (CommandSlot* slot = channels_.commands.Receive()) {
    kinds.push_back(slot->command.kind);
    channels_.commands.Release(slot);
  }
  ASSERT_EQ(kinds.size(), 2u);
  EXPECT_EQ(kinds[0], sm::CommandKind::kStopWalking);
  EXPECT_EQ(kinds[1], sm::CommandKind::kMode);
}

TEST_F(Intake, AControllerSilentForTheWalkingBoundStopsWalkingOnce) {
  ASSERT_EQ(config_.api.walking_silence_ms, 1000u) << "the shipped default";
  Stand(cloud_, 1, 0, 0);
  Drain();
  EXPECT_FALSE(intake_.CheckIdle(999 * kMs));
  EXPECT_EQ(Drain(), 0u) << "999 ms: still walking";
  EXPECT_FALSE(intake_.CheckIdle(1000 * kMs)) << "control is kept";
  ASSERT_EQ(Drain(), 1u);
  EXPECT_EQ(last_.kind, sm::CommandKind::kStopWalking);
  intake_.CheckIdle(1500 * kMs);
  EXPECT_EQ(Drain(), 0u) << "once per silence";
  Stand(cloud_, 2, 1600 * kMs, 1600 * kMs);
  Drain();
  intake_.CheckIdle(2600 * kMs);
  EXPECT_EQ(Drain(), 1u) << "a new silence stops it again";
}

// Issue 38: a command the state machine would refuse takes no control. 'ble' outranks 'cloud':
// while an observer's stop is latched for 'cloud', ble's STAND (refused: stop_latched) and its
// walk (refused in DAMP by the table) leave cloud in control, and cloud's walk is not stopped.
TEST_F(Intake, ACommandTheStateMachineWouldRefuseTakesNoControl) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  PublishView(sm::Mode::kDamp, /*latched=*/true, "cloud");
  const CommandIntake::Client ble{3, "ble", true, ""};
  auto out = Stand(ble, 1, 10 * kMs, 10 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_EQ(out.reason, sm::Reason::kStopLatched);
  EXPECT_FALSE(out.change);
  EXPECT_EQ(intake_.arbiter().current(), "cloud");
  EXPECT_EQ(Drain(), 0u) << "no stop-walking, no command";
  EXPECT_EQ(intake_.counters()[sm::Reason::kStopLatched], 1u);

  edge::CloudCommand walk;
  walk.set_sequence(2);
  walk.set_timestamp_us(kClientClock + static_cast<std::uint64_t>(20 * kMs));
  walk.mutable_velocity()->set_vx(0.3f);
  wall_us_ = static_cast<std::int64_t>(kClientClock) + 20 * kMs;
  out = intake_.Submit(ble, walk, 20 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_EQ(out.reason, sm::Decide(sm::Mode::kDamp, sm::CommandKind::kVelocity, {}, true).refused);
  EXPECT_EQ(intake_.arbiter().current(), "cloud");

  // The client in control: the control thread judges (and releases the latch for cloud).
  EXPECT_EQ(Stand(cloud_, 2, 30 * kMs, 30 * kMs).kind, Kind::kQueued);
  // DAMP is never judged away.
  EXPECT_EQ(Damp(ble, 40 * kMs).kind, Kind::kQueued);
}

// Red team R5, F1: cloud in control in STAND; an observer's DAMP is queued, and before the control
// thread has applied it (the newest snapshot still says STAND, unlatched) ble's STAND came. The
// admission check judged it on that snapshot, ble took control, and the control thread then
// refused its STAND (stop_latched): ble held control that nobody could use (8 of 32 runs). The
// check now judges as if the queued DAMP were applied, until two ticks have been published.
TEST_F(Intake, ACommandRightAfterAQueuedDampIsJudgedAsTheDampWillLeaveTheRobot) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  PublishView(sm::Mode::kStand);
  EXPECT_EQ(Damp(observer_, 5 * kMs).kind, Kind::kQueued);  // not applied yet
  const CommandIntake::Client ble{3, "ble", true, ""};
  const auto out = Stand(ble, 1, 6 * kMs, 6 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_EQ(out.reason, sm::Reason::kStopLatched);
  EXPECT_FALSE(out.change);
  EXPECT_EQ(intake_.arbiter().current(), "cloud");
  // Two ticks later the snapshot shows what the control thread did: it is judged on that.
  Drain();
  channels_.snapshots.back().ticks += 2;
  PublishView(sm::Mode::kDamp);  // (a latch released meanwhile, say)
  EXPECT_EQ(Stand(ble, 2, 20 * kMs, 20 * kMs).kind, Kind::kQueued);
  EXPECT_EQ(intake_.arbiter().current(), "ble");
}

// A controller that lost control after its stop latched takes it back with the STAND that
// releases the latch; another controller's STAND takes none.
TEST_F(Intake, OnlyTheLatchHoldersStandRetakesControlWhileLatched) {
  Stand(cloud_, 1, 0, 0);
  Drain();
  PublishView(sm::Mode::kDamp, /*latched=*/true, "cloud");
  const std::int64_t idle_us = config_.api.controller_idle_timeout_ms * kMs;
  ASSERT_TRUE(intake_.CheckIdle(idle_us));
  const CommandIntake::Client fleet{4, "fleet", true, ""};
  const auto out = Stand(fleet, 1, idle_us + kMs, idle_us + kMs);
  EXPECT_EQ(out.reason, sm::Reason::kStopLatched);
  EXPECT_EQ(intake_.arbiter().holder(), 0u);
  const auto back = Stand(cloud_, 2, idle_us + 2 * kMs, idle_us + 2 * kMs);
  EXPECT_EQ(back.kind, Kind::kQueued);
  ASSERT_TRUE(back.change);
  EXPECT_EQ(back.change->current, "cloud");
}

// A bring-up jog while the stop is latched takes no control either.
TEST_F(Intake, AJogTheStateMachineWouldRefuseTakesNoControl) {
  PublishView(sm::Mode::kDamp, /*latched=*/true, "cloud");
  const CommandIntake::Client maintainer{6, "maintainer", true, ""};
  sm::JogRequest jog;
  const auto out = intake_.SubmitJog(maintainer, jog, 10 * kMs);
  EXPECT_EQ(out.kind, Kind::kDropped);
  EXPECT_EQ(out.reason, sm::Reason::kStopLatched);
  EXPECT_FALSE(out.change);
  EXPECT_EQ(intake_.arbiter().holder(), 0u);
  PublishView(sm::Mode::kDamp);
  EXPECT_EQ(intake_.SubmitJog(maintainer, jog, 20 * kMs).kind, Kind::kQueued);
  EXPECT_EQ(intake_.arbiter().current(), "maintainer");
}

}  // namespace
}  // namespace robot_edge::daemon
