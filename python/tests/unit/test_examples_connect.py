"""The examples' command line: a token comes from a file or the environment, never argv."""
import os
import sys

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "examples"))
import _connect  # noqa: E402


def test_a_token_on_the_command_line_is_refused(capsys):
    with pytest.raises(SystemExit) as e:
        _connect.parser("x").parse_args(["--token", "s3cret"])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--token is refused" in err and "--token-file FILE" in err
    assert "$ROBOT_EDGE_TOKEN" in err and "s3cret" not in err


def test_the_token_comes_from_a_file_or_the_environment(tmp_path, monkeypatch):
    token = tmp_path / "cloud.token"
    token.write_text("s3cret\n")
    assert _connect.parser("x").parse_args(["--token-file", str(token)]).token == "s3cret"
    monkeypatch.setenv("ROBOT_EDGE_TOKEN", "from-env")
    assert _connect.parser("x").parse_args([]).token == "from-env"
    monkeypatch.delenv("ROBOT_EDGE_TOKEN")
    assert _connect.parser("x").parse_args([]).token is None
