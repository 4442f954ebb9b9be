#include "dds/dds_io.hpp"

#include <algorithm>
#include <memory>
#include <vector>

namespace robot_edge::dds {

namespace {

// Up to this many samples are taken at once: all the reader keeps.
constexpr std::size_t kTakeAtOnce = kLowCmdHistory;
// Matched writers asked for at first by Matched() (then as many as there are).
constexpr std::size_t kMatchedAtFirst = 16;

// `result` when it is an entity (> 0), else a DdsError naming `what`.
dds_entity_t Check(dds_entity_t result, const std::string& what) {
  if (result < 0) throw DdsError(what + " failed: " + dds_strretcode(result));
  return result;
}

void CheckOk(dds_return_t result, const std::string& what) {
  if (result != DDS_RETCODE_OK) throw DdsError(what + " failed: " + dds_strretcode(result));
}

struct QosDeleter {
  void operator()(dds_qos_t* qos) const { dds_delete_qos(qos); }
};
using Qos = std::unique_ptr<dds_qos_t, QosDeleter>;

Qos MakeQos(dds_reliability_kind_t reliability, dds_duration_t max_blocking, int depth) {
  Qos qos(dds_create_qos());
  dds_qset_reliability(qos.get(), reliability, max_blocking);
  dds_qset_history(qos.get(), DDS_HISTORY_KEEP_LAST, depth);
  return qos;
}

dds_entity_t MakeDomain(std::uint32_t domain, const std::string& config) {
  if (config.empty()) return 0;
  return Check(dds_create_domain(static_cast<dds_domainid_t>(domain), config.c_str()),
               "DDS domain " + std::to_string(domain) + " (its configuration)");
}

}  // namespace

Entity& Entity::operator=(Entity&& other) noexcept {
  if (this != &other) {
    if (handle_ > 0) dds_delete(handle_);
    handle_ = other.handle_;
    other.handle_ = 0;
  }
  return *this;
}

Entity::~Entity() {
  if (handle_ > 0) dds_delete(handle_);
}

Participant::Participant(std::uint32_t domain, const std::string& config)
    : domain_(MakeDomain(domain, config)),
      participant_(
          Check(dds_create_participant(static_cast<dds_domainid_t>(domain), nullptr, nullptr),
                "DDS participant on domain " + std::to_string(domain) +
                    " (check $CYCLONEDDS_URI and the security files)")) {}

bool Participant::WritingLowCmdIsControlled() const {
  const Entity topic(Check(dds_create_topic(participant_.get(), &pnd_adam_msg_dds__LowCmd__desc,
                                            kLowCmdTopic, nullptr, nullptr),
                           std::string("topic ") + kLowCmdTopic));
  const dds_entity_t writer = dds_create_writer(participant_.get(), topic.get(), nullptr, nullptr);
  if (writer == DDS_RETCODE_NOT_ALLOWED_BY_SECURITY) return true;
  const Entity made(Check(writer, std::string("probe writer of ") + kLowCmdTopic));
  return false;
}

LowCmdReader::LowCmdReader(const Participant& participant) {
  topic_ = Entity(Check(dds_create_topic(participant.get(), &pnd_adam_msg_dds__LowCmd__desc,
                                         kLowCmdTopic, nullptr, nullptr),
                        std::string("topic ") + kLowCmdTopic));
  const Qos qos = MakeQos(DDS_RELIABILITY_BEST_EFFORT, 0, kLowCmdHistory);
  reader_ = Entity(Check(dds_create_reader(participant.get(), topic_.get(), qos.get(), nullptr),
                         std::string("reader of ") + kLowCmdTopic));
  condition_ = Check(dds_create_readcondition(reader_.get(), DDS_ANY_STATE),
                     std::string("read condition of ") + kLowCmdTopic);
  waitset_ = Entity(Check(dds_create_waitset(participant.get()), "waitset"));
  CheckOk(dds_waitset_attach(waitset_.get(), condition_, 0), "waitset attach");
}

bool LowCmdReader::Take(std::chrono::milliseconds wait,
                        const std::function<void(const LowCmdSample&)>& use) {
  const dds_return_t triggered =
      dds_waitset_wait(waitset_.get(), nullptr, 0, DDS_MSECS(wait.count()));
  if (triggered < 0) {
    throw DdsError(std::string("waitset wait failed: ") + dds_strretcode(triggered));
  }
  if (triggered == 0) return false;
  void* samples[kTakeAtOnce] = {};
  dds_sample_info_t infos[kTakeAtOnce];
  const dds_return_t n = dds_take(condition_, samples, infos, kTakeAtOnce, kTakeAtOnce);
  if (n < 0) throw DdsError(std::string("take from rt/lowcmd failed: ") + dds_strretcode(n));
  struct ReturnLoan {
    dds_entity_t reader;
    void** samples;
    dds_return_t n;
    ~ReturnLoan() {
      if (n > 0) dds_return_loan(reader, samples, n);
    }
  } loan{condition_, samples, n};
  bool any = false;
  for (dds_return_t i = 0; i < n; ++i) {
    if (!infos[i].valid_data) continue;
    any = true;
    use(LowCmdSample{*static_cast<const pnd_adam_msg_dds__LowCmd_*>(samples[i]),
                     infos[i].publication_handle, infos[i].source_timestamp});
  }
  return any;
}

bool LowCmdReader::Matched(std::uint64_t writer) const {
  std::vector<dds_instance_handle_t> handles(kMatchedAtFirst);
  for (;;) {
    const dds_return_t n =
        dds_get_matched_publications(reader_.get(), handles.data(), handles.size());
    if (n < 0) throw DdsError(std::string("matched writers of rt/lowcmd: ") + dds_strretcode(n));
    const auto count = static_cast<std::size_t>(n);
    if (count <= handles.size()) {
      return std::find(handles.begin(), handles.begin() + n, writer) != handles.begin() + n;
    }
    handles.resize(count);  // more than asked for: ask again for all
  }
}

LowStateWriter::LowStateWriter(const Participant& participant) {
  topic_ = Entity(Check(dds_create_topic(participant.get(), &pnd_adam_msg_dds__LowState__desc,
                                         kLowStateTopic, nullptr, nullptr),
                        std::string("topic ") + kLowStateTopic));
  const Qos qos = MakeQos(DDS_RELIABILITY_RELIABLE, 0, 1);
  writer_ = Entity(Check(dds_create_writer(participant.get(), topic_.get(), qos.get(), nullptr),
                         std::string("writer of ") + kLowStateTopic));
}

bool LowStateWriter::Write(const pnd_adam_msg_dds__LowState_& sample) {
  return dds_write(writer_.get(), &sample) == DDS_RETCODE_OK;
}

}  // namespace robot_edge::dds
