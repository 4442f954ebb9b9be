"""The checked-in generated modules are what protoc makes of proto/*.proto today (drift fails
here), and the seeds' import path works."""
import filecmp
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PYTHON = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(PYTHON, "tools"))

import generate_protos  # noqa: E402


def test_checked_in_modules_match_protoc(tmp_path):
    written = generate_protos.generate(str(tmp_path))
    assert len(written) == 2
    for path in written:
        checked_in = os.path.join(generate_protos.OUT_DIR, os.path.basename(path))
        assert filecmp.cmp(path, checked_in, shallow=False), (
            f"{checked_in} differs from what protoc generates from proto/: run "
            "python/tools/generate_protos.py and commit the result")


def test_seed_import_path_and_descriptor_names():
    from edge.generated.edge_cloud_pb2 import (CloudCommand, EdgeTelemetry, FullTrajectory,
                                               JointSegment, ModeCommand, Mode, TrajectoryRequest,
                                               VelocityCommand)
    from edge.generated import edge_api_pb2, edge_cloud_pb2
    assert edge_cloud_pb2.DESCRIPTOR.name == "edge_cloud.proto"  # as the C++ side registers it
    assert edge_api_pb2.DESCRIPTOR.name == "edge_api.proto"
    assert CloudCommand.__module__ == "edge.generated.edge_cloud_pb2"
    # seed 000's example, unchanged
    cmd = CloudCommand(timestamp_us=1, sequence=2,
                       trajectory=TrajectoryRequest(full=FullTrajectory(segments=[
                           JointSegment(positions=[0.0] * 25)])))
    assert CloudCommand.FromString(cmd.SerializeToString()) == cmd
    assert ModeCommand(mode=Mode.MODE_DAMP).mode == 1 and VelocityCommand(vx=0.5).vx == 0.5
    m = edge_api_pb2.ServerMessage(telemetry=EdgeTelemetry(sequence=3))
    assert m.telemetry.sequence == 3
