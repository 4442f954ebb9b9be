"""The examples' common command line: where robot-edged is and who this client is."""
import argparse


def parser(description: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--socket", help="robot-edged's Unix socket (default $ROBOT_EDGE_SOCKET, else "
                                    "/run/robot-edge/api.sock)")
    p.add_argument("--tcp", help="HOST:PORT of robot-edged's api.tcp listener instead")
    p.add_argument("--token", help="the role's token (over TCP)")
    p.add_argument("--controller", default="cloud", help="role to take (default cloud)")
    return p
