"""An open item of an earlier, answered turn's plan that the current request is about is
possibly still open, not "no pending work" (blind check 68 W3: "Configure Nginx as reverse
proxy (marked pending)" was listed under "No open task-list items … no pending work" while the
user's last message showed `nginx -t` failing). Invented host and app."""

from __future__ import annotations

from pathlib import Path

from .cc_session import Session, cc_summary, section

PLAN = [
    {"content": "Install the app's packages", "status": "completed", "activeForm": "Installing"},
    {"content": "Configure Nginx as reverse proxy", "status": "pending", "activeForm": "Nginx"},
    {"content": "Write the release notes", "status": "pending", "activeForm": "Writing"},
]


def _session(request: str) -> Session:
    s = Session()
    s.user("set up the shop app on the new server")
    s.call("TodoWrite", {"todos": PLAN}, "Todos have been modified successfully.")
    s.bash("npm ci", "added 120 packages in 9s")
    s.say("The app's packages are installed and the app runs on port 3000.")
    s.user(request)
    s.say("The directive has a value nginx does not know. Run this and tell me what it prints.")
    return s


def test_a_plan_item_the_current_request_is_about_is_possibly_open(tmp_path: Path) -> None:
    failing = (
        'sudo nginx -t\nnginx: [emerg] invalid value "must-revalidate" in '
        "/etc/nginx/sites-enabled/shop:12\nnginx: configuration file /etc/nginx/nginx.conf "
        "test failed"
    )
    pending = " ".join(section(cc_summary(_session(failing), tmp_path), 7).split())
    assert "No open task-list items" not in pending, pending
    assert "is about nginx: these items of it, not marked done then, are possibly still open" in (
        pending
    )
    tied, others = pending.split("Its other items")
    assert "Configure Nginx as reverse proxy (marked pending)" in tied
    assert "Write the release notes (marked pending)" in others
    assert "no pending work: do not redo them unless the user asks" in others


def test_an_unrelated_request_keeps_the_old_note(tmp_path: Path) -> None:
    pending = " ".join(section(cc_summary(_session("add a favicon"), tmp_path), 7).split())
    assert "No open task-list items: the agent's plan" in pending, pending
    assert "possibly still open" not in pending
