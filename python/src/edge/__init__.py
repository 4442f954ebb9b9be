"""The seeds' import path: `from edge.generated.edge_cloud_pb2 import CloudCommand, ...`.

`edge.generated` holds the protobuf modules generated from robot-edge's proto/ directory
(python/tools/generate_protos.py). The client itself is the `robot_edge` package.
"""
