"""The framing codec against golden bytes (proto/framing.hpp's format)."""
import pytest

from edge.generated.edge_api_pb2 import ClientMessage, Hello
from robot_edge.errors import ProtocolError
from robot_edge.framing import MAX_MESSAGE_BYTES, FrameDecoder, encode_frame, encode_varint


@pytest.mark.parametrize("value,hex_bytes", [(0, "00"), (1, "01"), (127, "7f"), (128, "8001"),
                                             (300, "ac02"), (65536, "808004")])
def test_varint_golden(value, hex_bytes):
    assert encode_varint(value).hex() == hex_bytes


def test_hello_frame_golden():
    m = ClientMessage(hello=Hello(controller="cloud", want_command_results=True))
    assert encode_frame(m.SerializeToString()).hex() == "0b0a090a05636c6f75642001"


def test_decoder_byte_by_byte_and_several_in_one_feed():
    data = encode_frame(b"abc") + encode_frame(b"") + encode_frame(b"x" * 300)
    d = FrameDecoder()
    got = []
    for i in range(len(data)):
        d.feed(data[i:i + 1])
        while (p := d.next()) is not None:
            got.append(p)
    assert got == [b"abc", b"", b"x" * 300]
    d.feed(data)
    assert [d.next(), d.next(), d.next(), d.next()] == [b"abc", b"", b"x" * 300, None]
    assert d.buffered_bytes == 0


def test_largest_message_passes_and_one_more_byte_does_not():
    d = FrameDecoder()
    d.feed(encode_frame(b"y" * MAX_MESSAGE_BYTES))
    assert len(d.next()) == MAX_MESSAGE_BYTES
    with pytest.raises(ValueError, match="64 KiB"):
        encode_frame(b"y" * (MAX_MESSAGE_BYTES + 1))
    d.feed(encode_varint(MAX_MESSAGE_BYTES + 1))
    with pytest.raises(ProtocolError, match="65537 bytes"):
        d.next()
    with pytest.raises(ProtocolError):  # sticky: the stream cannot be trusted any more
        d.feed(encode_frame(b"ok"))
        d.next()


def test_malformed_length_prefix():
    d = FrameDecoder()
    d.feed(b"\xff\xff\xff\xff")
    assert d.next() is None  # could still be a 5-byte varint
    d.feed(b"\xff")
    with pytest.raises(ProtocolError, match="malformed length prefix"):
        d.next()
