"""AsyncClient over TLS (the daemon's api.tls) against an asyncio TLS server in the test, with a
throwaway PKI (tests/uplink/make_test_pki.sh: ca, server for localhost / 127.0.0.1, and an
unrelated CA "other")."""
import asyncio
import os
import ssl
import subprocess

import pytest

from edge.generated.edge_api_pb2 import ClientMessage, Goodbye, ServerMessage, Welcome
from fake_daemon import JOINTS
from robot_edge import AsyncClient, ConnectError, tls_context
from robot_edge.framing import FrameDecoder, encode_frame

PKI_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "tests",
                          "uplink", "make_test_pki.sh")


@pytest.fixture(scope="module")
def pki(tmp_path_factory):
    d = tmp_path_factory.mktemp("pki")
    subprocess.run(["sh", PKI_SCRIPT, str(d)], check=True)
    return d


def run(coro):
    return asyncio.run(asyncio.wait_for(coro, 20))


async def serve(pki, tls: bool):
    """A daemon that answers the first message with a Welcome over TLS (or a Goodbye in
    plaintext, as robot-edged does to bytes it cannot decode). Returns (server, port, hellos)."""
    hellos = []

    async def handle(reader, writer):
        decoder = FrameDecoder()
        data = await reader.read(65536)
        try:
            decoder.feed(data)
            payload = decoder.next()
            hellos.append(ClientMessage.FromString(payload).hello)
            reply = ServerMessage(welcome=Welcome(version="0.1.0", joint_names=JOINTS))
        except Exception:  # noqa: BLE001 - a TLS ClientHello is not a frame
            reply = ServerMessage(goodbye=Goodbye(reason="undecodable ClientMessage"))
        writer.write(encode_frame(reply.SerializeToString()))
        await writer.drain()
        await asyncio.sleep(0.2)
        writer.close()

    context = None
    if tls:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(str(pki / "server.pem"), str(pki / "server.key"))
    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context)
    return server, server.sockets[0].getsockname()[1], hellos


def test_a_client_trusting_the_ca_is_welcomed_and_its_token_goes_inside_tls(pki):
    async def main():
        server, port, hellos = await serve(pki, tls=True)
        async with server:
            async with AsyncClient(tcp=f"127.0.0.1:{port}", token="s3cret",
                                   tls=tls_context(str(pki / "ca.pem"))) as c:
                w = await c.hello()
                assert list(w.joint_names) == JOINTS
        assert hellos[0].token == "s3cret"
    run(main())


def test_another_ca_is_not_trusted(pki):
    async def main():
        server, port, _ = await serve(pki, tls=True)
        async with server:
            with pytest.raises(ConnectError, match="certificate not trusted"):
                await AsyncClient(tcp=f"127.0.0.1:{port}",
                                  tls=tls_context(str(pki / "other.pem"))).connect()
    run(main())


def test_a_certificate_for_another_name_is_a_mismatch(pki):
    async def main():
        server, port, _ = await serve(pki, tls=True)
        async with server:
            with pytest.raises(ConnectError, match="name mismatch"):
                await AsyncClient(tcp=f"127.0.0.1:{port}", tls=tls_context(str(pki / "ca.pem")),
                                  tls_name="robot.example").connect()
    run(main())


def test_a_plaintext_daemon_does_not_speak_tls(pki):
    async def main():
        server, port, _ = await serve(pki, tls=False)
        async with server:
            with pytest.raises(ConnectError, match="does not speak TLS"):
                await AsyncClient(tcp=f"127.0.0.1:{port}",
                                  tls=tls_context(str(pki / "ca.pem"))).connect()
    run(main())


def test_tls_needs_tcp(pki):
    with pytest.raises(ValueError, match="tls needs tcp"):
        AsyncClient("/run/robot-edge/api.sock", tls=tls_context(str(pki / "ca.pem")))
