"""Blind check 8's wrong statements in the local summary (issue 28, quality pass 7), each on a
session built here by shape: background jobs a ``pkill -f`` pattern ended or whose product a
later command used, a superseded "still running" line, an abridged chat without tool calls, a
proposal the assistant withdrew, a last reply that asked the user for input, shell fragments
taken for files."""

from __future__ import annotations

from compactor.models.local import summarize_transcript
from compactor.schema import Message

from .planted_session import SessionBuilder
from .test_models_local_session import section

_RUNNING = "Background job still running"
_BG = (
    "Command running in background with ID: {}. Output is being written to: /tmp/tasks/{}.output."
    " You will be notified when it completes."
)


def _started(s: SessionBuilder, job: str, command: str) -> None:
    s.call("Bash", {"command": command, "run_in_background": True}, _BG.format(job, job))


def _ended(s: SessionBuilder, closing: str = "All done: the figures are written.") -> str:
    s.say(closing)
    return summarize_transcript(s.messages)


# -- 1. jobs ended by a pattern kill or by the later use of their product ----------------------


def test_a_job_a_pkill_pattern_matched_is_not_still_running() -> None:
    """biobabel: ``cat > work/_probe.py <<EOF … EOF`` then ``python -u work/_probe.py`` in the
    background (id 7kq2), later ``pkill -f "_probe.py"``: the pattern matches the command that
    started the job (no word of it without a ``/``), so the job ended."""
    s = SessionBuilder()
    s.user("fit the model and plot the smoothers")
    _started(
        s,
        "b7kq2xyz",
        "cd /srv/run\ncat > work/_probe.py <<'EOF'\nimport time\ntime.sleep(900)\nEOF\n"
        "env/bin/python -u work/_probe.py > logs/probe.log 2>&1",
    )
    s.call("Bash", {"command": "tail -3 logs/probe.log"}, "fitting…")
    s.call("Bash", {"command": 'pkill -f "_probe.py" 2>/dev/null; echo "killed probe"'}, "Exit 144")
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "b7kq2xyz" not in section(text, 9), text


def test_a_shell_job_killed_by_its_process_name_is_not_still_running() -> None:
    s = SessionBuilder()
    s.user("watch the build")
    s.call(
        "Bash",
        {
            "command": 'cd /srv && ./tools/watchdogd --dir out > logs/w.log 2>&1 &\necho "probe started pid $!"'
        },
        "probe started pid 246184",
    )
    s.call("Bash", {"command": "killall watchdogd"}, "")
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "246184" not in section(text, 9), text


def test_a_kill_pattern_that_matches_another_command_leaves_the_job_running() -> None:
    s = SessionBuilder()
    s.user("watch the build")
    s.call(
        "Bash",
        {
            "command": 'env/bin/python -u work/_probe.py > logs/probe.log 2>&1 &\necho "probe started pid $!"'
        },
        "probe started pid 246184",
    )
    s.call("Bash", {"command": 'pkill -f "other_script.py"'}, "")
    text = _ended(s)
    assert _RUNNING in section(text, 7) and "246184" in section(text, 9), text


def test_an_install_job_whose_packages_a_later_command_used_is_not_still_running() -> None:
    """biobabel: ``pip install nbformat nbconvert > logs/pip.log`` in the background, never
    notified; a later command that succeeded ran ``import nbformat``: the install finished."""
    s = SessionBuilder()
    s.user("build the notebook")
    _started(s, "bdc9q", "env/bin/python -m pip install nbformat nbconvert > logs/pip.log 2>&1")
    s.call(
        "Bash",
        {"command": 'env/bin/python -c "import nbformat; print(nbformat.__version__)"'},
        "5.10.4",
    )
    text = _ended(s)
    assert _RUNNING not in section(text, 7) and "bdc9q" not in section(text, 9), text


def test_an_install_job_whose_packages_only_failed_commands_used_may_still_run() -> None:
    s = SessionBuilder()
    s.user("build the notebook")
    _started(s, "bdc9q", "env/bin/python -m pip install nbformat > logs/pip.log 2>&1")
    s.call(
        "Bash",
        {"command": 'env/bin/python -c "import nbformat"'},
        "ModuleNotFoundError: No module named 'nbformat'",
        error=True,
    )
    text = _ended(s)
    assert _RUNNING in section(text, 7) and "bdc9q" in section(text, 7), text


# -- 6. shell fragments are not files ------------------------------------------------------------


def test_code_inside_a_quoted_one_liner_is_not_a_created_file() -> None:
    """toolerr: ``node -e "… filter(k => k.toLowerCase() …)"``: the ``>`` of the arrow is
    JavaScript inside the quotes, not a redirect to a file ``k.toLowerCase``."""
    s = SessionBuilder()
    s.user("which exports mention zod?")
    s.call(
        "Bash",
        {
            "command": "node -e \"const ai = require('./node_modules/ai'); "
            "console.log(Object.keys(ai).filter(k => k.toLowerCase().includes('zod')))\""
        },
        "[ 'zodSchema' ]",
    )
    s.call("Bash", {"command": "echo ok > notes/result.txt"}, "")
    text = _ended(s, "Only zodSchema is exported.")
    assert "toLowerCase" not in section(text, 3) and "toLowerCase" not in section(text, 8), text
    assert "notes/result.txt" in section(text, 3), text


def test_a_sed_script_with_semicolons_is_not_a_changed_file() -> None:
    """biobabel: ``sed -i 's/a(p, "\\(x[^"]*\\)"/a("\\1", p/; s/…/…/' work/diag.py``: the
    ``;`` inside the quoted script does not end the command, so the edited file is
    ``work/diag.py`` and no piece of the script is listed as a file."""
    s = SessionBuilder()
    s.user("save the figures under outputs/")
    script = 's/gg.ggsave(p, "\\(outputs[^"]*\\)"/gg.ggsave("\\1", p/; s/save(q, "x"/save("x", q/'
    s.call(
        "Bash",
        {"command": f"cd /srv\nsed -i '{script}' work/diag.py\ngrep -n ggsave work/diag.py"},
        "",
    )
    text = _ended(s, "The figures are saved under outputs/.")
    files = section(text, 3) + section(text, 8)
    assert "work/diag.py" in files and "gg.ggsave(" not in files and "outputs[^" not in files, text


def _chat(*turns: str) -> list[Message]:
    roles = ("user", "assistant")
    return [Message(roles[n % 2], t) for n, t in enumerate(turns)]
