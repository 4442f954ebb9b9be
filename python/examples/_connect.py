"""The examples' common command line: where robot-edged is and who this client is.

A controller's token never goes on the command line (every user of the machine reads those in /proc):
--token-file FILE, else $ROBOT_EDGE_TOKEN; --token is refused."""
import argparse
import os
import sys

import robot_edge


class _TokenFile(argparse.Action):
    """--token-file FILE: the token in FILE, trailing whitespace dropped."""

    def __call__(self, parser, namespace, path, option_string=None):
        try:
            with open(path, encoding="utf-8") as f:
                token = f.read().rstrip()
        except OSError as e:
            parser.error(f"--token-file: cannot read {path}: {e.strerror}")
        if not token:
            parser.error(f"--token-file: {path} holds no token")
        namespace.token = token


class _RefuseToken(argparse.Action):
    def __call__(self, parser, namespace, values, option_string=None):
        parser.error("--token is refused: a command line is visible to every user of this "
                     "machine (/proc). Give the token in a file readable only by you "
                     "(--token-file FILE) or in $ROBOT_EDGE_TOKEN")


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--socket", help="robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else "
                                    "/run/robot-edge/api.sock)")
    p.add_argument("--tcp", help="HOST:PORT of robot-edged's api.tcp listener instead")
    p.add_argument("--token-file", dest="token", metavar="FILE", action=_TokenFile,
                   default=os.environ.get("ROBOT_EDGE_TOKEN"),
                   help="the controller's token over TCP, read from FILE (default $ROBOT_EDGE_TOKEN)")
    p.add_argument("--token", dest="refused_token", action=_RefuseToken, help=argparse.SUPPRESS)
    p.add_argument("--controller", default="cloud", help="controller to connect as (default cloud)")
    return p


def connect(args: argparse.Namespace):
    """A robot_edge.Client to robot-edged as the command line says, not yet greeted; None, with the
    error printed, when it cannot connect."""
    try:
        return robot_edge.Client(args.socket, tcp=args.tcp, token=args.token)
    except robot_edge.ConnectError as e:
        print(e, file=sys.stderr)
        return None
