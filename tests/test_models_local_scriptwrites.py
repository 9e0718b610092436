"""A file a script writes when the agent runs it is changed, not "Read, not changed" (issue 28,
blind check 24 W3, cc-steam: ``build_nb.py``, written by a ``Write`` whose content writes
``notebook.ipynb``, was run after a ``cd``; a ``python`` here-document then executed the notebook
and ``nbformat.write`` saved it; section 3 listed the notebook as read and never changed). Each
session is built here by shape."""

from __future__ import annotations

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

_DIR = "/home/ana/study/task 2"
_SCRIPT = """import json
nb = {"cells": [], "nbformat": 4, "nbformat_minor": 5, "metadata": {}}
nb["cells"].append({"cell_type": "code", "source": "print(1)"})
json.dump(nb, open("report.ipynb", "w", encoding="utf-8"), indent=1)
print("done, cells:", len(nb["cells"]))
"""


def _files(text: str) -> str:
    return " ".join(section(text, 3).split())


def _session(*, run: bool, execute: bool) -> SessionBuilder:
    s = SessionBuilder()
    s.user(f"Build the analysis notebook in {_DIR}/report.ipynb and execute it.")
    s.call("Read", {"file_path": f"{_DIR}/report.ipynb"}, '{"cells": []}\n')
    s.call(
        "Write",
        {"file_path": f"{_DIR}/make_nb.py", "content": _SCRIPT},
        f"File created successfully at: {_DIR}/make_nb.py",
    )
    if run:
        s.call("Bash", {"command": f'cd "{_DIR}" && python make_nb.py'}, "done, cells: 1\n")
    if execute:
        code = (
            f"cd \"{_DIR}\" && python - <<'PY'\nimport nbformat\nfrom nbclient import "
            "NotebookClient\nnb = nbformat.read('report.ipynb', as_version=4)\n"
            "NotebookClient(nb).execute()\nnbformat.write(nb, 'report.ipynb')\n"
            "print('EXECUTED OK')\nPY"
        )
        s.call("Bash", {"command": code}, "EXECUTED OK\n")
    s.say("Done: the notebook is built and executed.")
    return s


def test_a_file_the_agents_script_writes_when_run_is_changed() -> None:
    files = _files(summarize_transcript(_session(run=True, execute=False).messages))
    assert f"{_DIR}/report.ipynb (written by make_nb.py when run (its code writes it)" in files
    read = files.split("Read, not changed:")[1] if "Read, not changed:" in files else ""
    assert "report.ipynb" not in read, files


def test_a_file_the_commands_own_code_writes_after_cd_is_changed() -> None:
    files = _files(summarize_transcript(_session(run=False, execute=True).messages))
    assert f"{_DIR}/report.ipynb (" in files, files
    assert "Read, not changed" not in files or "report.ipynb" not in files.split("Read, not")[1]


def test_a_script_written_but_never_run_changes_nothing() -> None:
    files = _files(summarize_transcript(_session(run=False, execute=False).messages))
    assert "written by make_nb.py" not in files
    assert f"Read, not changed: {_DIR}/report.ipynb" in files, files


def test_a_relative_name_after_cd_is_a_call_naming_the_users_file() -> None:
    """Blind check 24 W4: the user named an absolute (Windows) path; the calls used it by a
    relative name after ``cd`` (``head -2 games.csv``, ``cp "../../games.csv" …``): it is no
    "may not exist" file. A file no call names at all still is."""
    s = SessionBuilder()
    s.user(r"Use D:\Home\ana\study\games.csv and D:\Home\ana\study\extra.csv for task 2.")
    head = 'cd "D:/Home/ana/study" && head -2 games.csv && wc -l games.csv'
    s.call("Bash", {"command": head}, "app,price\n1,9.99\n27075 games.csv\n")
    copy = 'cd "D:/Home/ana/study/tasks/task 2" && cp "../../games.csv" work/steam.csv'
    s.call("Bash", {"command": copy}, "")
    s.say("Copied the data into the work folder.")
    files = _files(summarize_transcript(s.messages))
    never = files.split("never by a call")[1] if "never by a call" in files else ""
    assert "games.csv" not in never, files
    assert r"D:\Home\ana\study\extra.csv" in never, files
