#!/usr/bin/python3
"""Regenerates python/src/edge/generated/*_pb2.py from proto/*.proto with protoc.

    python/tools/generate_protos.py [--protoc PROTOC] [--out DIR]

The generated modules are checked in (python/README.md, "Generated messages"); this script is how
they are made, and python/tests/test_generated.py runs it into a temporary directory and compares
the bytes, so a .proto edited without regenerating fails the unit tests.

protoc writes `import edge_cloud_pb2` (a top-level module) into edge_api_pb2.py because
edge_api.proto says `import "edge_cloud.proto"`, and names each module's classes as being in a
top-level module (`__module__ == "edge_api_pb2"`, which breaks pickle). The package is
`edge.generated`: that import becomes a relative one and the module names become
"edge.generated.…". Nothing else is changed (the descriptors keep the file names
"edge_cloud.proto" and "edge_api.proto" that the C++ side registers).
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PROTO_DIR = os.path.join(REPO, "proto")
OUT_DIR = os.path.join(REPO, "python", "src", "edge", "generated")
PROTOS = ["edge_cloud.proto", "edge_api.proto"]
# (file, what protoc writes, what the package needs). Each must match exactly once.
REWRITES = [
    ("edge_api_pb2.py", "\nimport edge_cloud_pb2 as edge__cloud__pb2\n",
     "\nfrom . import edge_cloud_pb2 as edge__cloud__pb2\n"),
] + [
    (f"{m}.py", f"(DESCRIPTOR, '{m}', globals())", f"(DESCRIPTOR, 'edge.generated.{m}', globals())")
    for m in ("edge_cloud_pb2", "edge_api_pb2")
]


def generate(out_dir: str, protoc: str = "protoc") -> list:
    """Writes the modules into out_dir; returns their paths. Raises RuntimeError with protoc's
    message, or when protoc's output no longer has the line a rewrite expects."""
    if shutil.which(protoc) is None:
        raise RuntimeError(f"{protoc} not found: install protobuf-compiler (scripts/bootstrap)")
    with tempfile.TemporaryDirectory() as tmp:
        run = subprocess.run([protoc, f"-I{PROTO_DIR}", f"--python_out={tmp}"] +
                             [os.path.join(PROTO_DIR, p) for p in PROTOS],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError(f"protoc failed:\n{run.stderr}")
        for name, old, new in REWRITES:
            path = os.path.join(tmp, name)
            with open(path, encoding="utf-8") as f:
                text = f.read()
            if text.count(old) != 1:
                raise RuntimeError(f"{name}: protoc's output no longer contains {old.strip()!r} "
                                   "exactly once; update REWRITES in " + __file__)
            with open(path, "w", encoding="utf-8") as f:
                f.write(text.replace(old, new))
        os.makedirs(out_dir, exist_ok=True)
        written = []
        for proto in PROTOS:
            name = proto.replace(".proto", "_pb2.py")
            shutil.copyfile(os.path.join(tmp, name), os.path.join(out_dir, name))
            written.append(os.path.join(out_dir, name))
        return written


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--protoc", default="protoc", help="the protoc to run (default: on PATH)")
    p.add_argument("--out", default=OUT_DIR, help="output directory (default: the package's)")
    args = p.parse_args()
    try:
        for path in generate(args.out, args.protoc):
            print(f"wrote {os.path.relpath(path)}")
    except RuntimeError as e:
        print(f"generate_protos: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
