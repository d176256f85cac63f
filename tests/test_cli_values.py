"""Values given on the command line (issue 36): a storage URL that names no file, and
numbers out of their range, are one ``error:`` line before anything is made, the line
a spec gives for the same value."""

from __future__ import annotations

import pytest

from paretostab._cli import main


def _refused(argv: list[str], capsys) -> str:
    """The one ``error:`` line ``argv`` exits with (status 2)."""
    with pytest.raises(SystemExit) as stop:
        main(argv)
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


@pytest.mark.parametrize("url", ["journal:", "sqlite:///", "journal:/", "sqlite:////"])
@pytest.mark.parametrize("command", [["tune", "--n-trials", "1"], ["report"],
                                     ["choose", "--gamma", "0.5"], ["dashboard"]])
def test_a_storage_url_without_a_file_is_one_error_line(url, command, capsys, tmp_path,
                                                        monkeypatch):
    # before: tune computed the artifact folder beside the file first and raised
    # ValueError: PosixPath('.') has an empty name
    monkeypatch.chdir(tmp_path)
    if command == ["dashboard"]:
        pytest.importorskip("optuna_dashboard")
    err = _refused([*command, "--storage", url], capsys)
    assert f"storage {url!r} names no file" in err
    assert ("journal:PATH" if url.startswith("journal") else "sqlite:///FILE") in err
    assert list(tmp_path.iterdir()) == []
