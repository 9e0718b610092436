"""Section 4's "error → fix" pairing and section 7's unfixed failures (fix59b, issue 28; blind
check 59: a failure is fixed or worked around when the same script, the same operation or the
same question later succeeds, however it was run). Each session is built by shape, with
invented content."""

from __future__ import annotations

from typing import Any

from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- an inline script's fix imports the module its error rose in (59 W3) -------------------------

_CHART = """/srv/venv/bin/python -c "
import sys
sys.path.insert(0, '/srv/kiosk')
from reportlab.pdfgen import canvas
def draw_badge(name):
    c = canvas.Canvas('/tmp/badge.pdf')
    c.drawString(10, 10, name)
    c.save()
    return 'ok'
print(draw_badge('Zoë'))
"
"""
_CHART_ERROR = (
    'Exit code 1\nTraceback (most recent call last):\n  File "<string>", line 9, in <module>\n'
    "reportlab.pdfbase.ttfonts.TTFError: Can't render glyph"
)
_RETEST = """/srv/venv/bin/python -c "
from reportlab.pdfgen import canvas
c = canvas.Canvas('/tmp/badge2.pdf')
c.setFont('Vera', 11)
c.drawString(10, 10, 'Zoë')
c.save()
print('badge ok')
"
"""
_WEATHER = """/srv/venv/bin/python -c "
import sys
from weatherlib import Client
for city in ['Oslo', 'Lima']:
    print(city, Client().now(city))
"
"""


def test_an_unrelated_inline_script_is_not_the_fix_of_one_that_failed() -> None:
    s = SessionBuilder()
    s.user("the badge printer crashes on accented names, fix it")
    s.call("Bash", {"command": _CHART}, _CHART_ERROR, error=True)
    s.say("The font cannot draw the accent; I'll switch the badge to a TTF font.")
    s.call(
        "Edit",
        {"file_path": "/srv/kiosk/badges.py", "old_string": "Helv", "new_string": "Vera"},
        "The file has been updated.",
    )
    s.call("Bash", {"command": _RETEST}, "badge ok")
    s.say("Badges print now.")
    s.user("can the kiosk also show the weather?")
    s.call("Bash", {"command": _WEATHER}, "Oslo 3C\nLima 19C")
    s.say("Yes, weatherlib works.")
    four = section(summarize_transcript(s.messages), 4)
    line = next(x for x in four.splitlines() if "Can't render glyph" in x)
    after = four.split(line, 1)[1].split("\n   - ", 1)[0]
    assert "weatherlib" not in after, four
    assert "badge2.pdf" in after or "setFont" in after, four


def test_inline_scripts_sharing_only_language_words_are_not_one_attempt() -> None:
    s = SessionBuilder()
    s.user("list the overdue invoices")
    failing = """/opt/ledger/venv/bin/python -c "
import sys, os
sys.path.insert(0, '/data/ledger')
from ledger_io import load_rows
rows = load_rows('/data/ledger/invoices.json')
for r in rows:
    print(r['due'], '|', r['client'])
"
"""
    s.call("Bash", {"command": failing}, "Exit code 1\nKeyError: 'due'", error=True)
    s.say("The ledger has no 'due' field; I'll ask which field holds the date.")
    other = """/opt/ledger/venv/bin/python -c "
from spooler import Spool
with Spool() as sp:
    items = list(sp.items('outbox', limit=3))
for p in items:
    print(p.name, '|', p.stat().st_size)
"
"""
    s.call("Bash", {"command": other}, "a.tmp | 10")
    s.say("Which field holds the due date?")
    four = section(summarize_transcript(s.messages), 4)
    line = next(x for x in four.splitlines() if "KeyError" in x)
    after = four.split(line, 1)[1].split("\n   - ", 1)[0]
    assert "Fixed" not in after, four


# -- the same script run another way is its fix (59 W7) ------------------------------------------

_SEED_ERROR = (
    'Exit code 1\nTraceback (most recent call last):\n  File "/srv/shop/seed_rows.py", line 4\n'
    "django.core.exceptions.ImproperlyConfigured: Requested setting INSTALLED_APPS"
)


def _seed_session(other_way: str, output: str = "") -> tuple[str, str]:
    s = SessionBuilder()
    s.user("the shop has no demo data, load it")
    s.call("Bash", {"command": "cd /srv/shop && python seed_rows.py"}, _SEED_ERROR, error=True)
    s.call(
        "Bash",
        {"command": "cd /srv/shop && DJANGO_SETTINGS_MODULE=shop.settings python seed_rows.py"},
        _SEED_ERROR,
        error=True,
    )
    s.call("Bash", {"command": f"cd /srv/shop && {other_way}"}, output)
    summary = summarize_transcript(s.messages)
    return section(summary, 4), section(summary, 7)


def test_a_script_run_through_the_framework_shell_later_fixes_its_direct_runs() -> None:
    for way in (
        "python manage.py shell < seed_rows.py",
        "python manage.py shell -c \"exec(open('seed_rows.py').read())\"",
        "python -m shop.seed_rows",
        "python manage.py shell -c 'import seed_rows'",
    ):
        four, seven = _seed_session(way)
        assert "Unresolved failure" not in seven, (way, seven)
        assert "Not fixed" not in four and four.count("Fixed: a later") == 2, (way, four)


def test_reading_the_script_or_another_step_of_the_same_runner_fixes_nothing() -> None:
    for way in ("cat seed_rows.py", "python manage.py check"):
        four, seven = _seed_session(way, "ok")
        assert "Fixed: a later" not in four, (way, four)
        assert "Unresolved failure" in seven, (way, seven)


# -- the same operation done by another tool is a workaround (59 W4) -----------------------------

_DDL = "CREATE TABLE IF NOT EXISTS gift_cards (id SERIAL PRIMARY KEY, code TEXT);\n" + (
    "CREATE TABLE IF NOT EXISTS gift_redemptions (id SERIAL PRIMARY KEY, card_id INT);"
)


def _ddl_session(later_sql: str) -> tuple[str, str]:
    s = SessionBuilder()
    s.user("add the gift card tables to the database")
    s.call(
        "Bash",
        {"command": f'psql "postgresql://app@db.example.test/shop" -c "{_DDL}"'},
        "Exit code 127\n/bin/bash: line 3: psql: command not found",
        error=True,
    )
    script = (
        '/opt/venv/bin/python3 -c "\nimport psycopg2\n'
        "conn = psycopg2.connect('postgresql://app@db.example.test/shop')\n"
        f"cur = conn.cursor()\ncur.execute('''{later_sql}''')\nconn.commit()\nprint('ok')\n\""
    )
    s.call("Bash", {"command": script}, "ok")
    summary = summarize_transcript(s.messages)
    return section(summary, 4), section(summary, 7)


def test_the_same_tables_created_by_another_tool_work_around_the_failed_client() -> None:
    four, seven = _ddl_session(_DDL)
    assert "Unresolved failure" not in seven, seven
    assert "Worked around by" in four and "gift_cards, gift_redemptions" in four, four


def test_other_tables_created_by_another_tool_work_around_nothing() -> None:
    four, seven = _ddl_session("CREATE TABLE IF NOT EXISTS gift_cards (id SERIAL PRIMARY KEY);")
    assert "Unresolved failure" in seven, seven
    assert "gift_redemptions" not in four.split("failed", 1)[1].split("\n   - ", 1)[0], four


# -- a failed probe that another environment answered (59 W5) ------------------------------------


def _probe_session(later: str) -> str:
    s = SessionBuilder()
    s.user("restart the dashboard with the new routes")
    s.call(
        "Bash",
        {"command": '/root/venv/bin/python3 -c "import starlette; print(starlette.__version__)"'},
        'Exit code 1\nTraceback (most recent call last):\n  File "<string>", line 1\n'
        "ModuleNotFoundError: No module named 'starlette'",
        error=True,
    )
    s.call("Bash", {"command": "ls /srv/dash/venv/bin/python3"}, "/srv/dash/venv/bin/python3")
    s.call("Bash", {"command": later}, "0.37.2")
    return section(summarize_transcript(s.messages), 7)


def test_a_failed_import_probe_answered_in_another_environment_is_not_unresolved() -> None:
    seven = _probe_session(
        '/srv/dash/venv/bin/python3 -c "import starlette; print(starlette.__version__)"'
    )
    assert "Unresolved failure" not in seven, seven


def test_a_probe_of_another_module_answers_nothing() -> None:
    seven = _probe_session(
        '/srv/dash/venv/bin/python3 -c "import uvicorn; print(uvicorn.__version__)"'
    )
    assert "Unresolved failure" in seven and "starlette" in seven, seven


def _other_tool_session(failed: str, error: str, later: str) -> str:
    s = SessionBuilder()
    s.user("get the rate table ready")
    s.call("Bash", {"command": failed}, error, error=True)
    s.call("Bash", {"command": later}, "done")
    return section(summarize_transcript(s.messages), 7)


def test_the_same_url_or_packages_got_by_another_tool_are_no_unresolved_failure() -> None:
    url = "https://rates.example.test/v2/table.csv?region=eu"
    seven = _other_tool_session(
        f"curl -fsSL '{url}' -o /tmp/rates.csv",
        "Exit code 60\ncurl: (60) SSL certificate problem: unable to get local issuer certificate",
        f"/opt/venv/bin/python3 -c \"import urllib.request as u; u.urlretrieve('{url}', "
        "'/tmp/rates.csv'); print('done')\"",
    )
    assert "Unresolved failure" not in seven, seven
    seven = _other_tool_session(
        "pip install ratelimit-table==2.1 tabulate",
        "Exit code 1\nerror: externally-managed-environment",
        "uv pip install --system tabulate ratelimit-table",
    )
    assert "Unresolved failure" not in seven, seven


# -- an edit of what the failure names, then a re-run: the edit is the fix (59 W3) ---------------


def _edit_then_rerun(failed: str, error: str, edit: dict[str, Any], rerun: str) -> str:
    s = SessionBuilder()
    s.user("the nightly report crashes, fix it")
    s.call("Bash", {"command": failed}, error, error=True)
    s.call("Read", {"file_path": edit["file_path"]}, "1\tdef render_totals(rows):")
    s.call("Edit", edit, "The file has been updated.")
    s.call("Bash", {"command": rerun}, "report written")
    s.say("Fixed the report.")
    return section(summarize_transcript(s.messages), 4)


def test_an_edit_of_the_file_the_traceback_names_is_the_fix_of_a_rerun() -> None:
    four = _edit_then_rerun(
        "python tools/nightly_report.py",
        'Exit code 1\nTraceback (most recent call last):\n  File "/w/tools/nightly_report.py", '
        "line 3, in <module>\nNameError: name 'totl' is not defined",
        {"file_path": "/w/tools/nightly_report.py", "old_string": "totl", "new_string": "total"},
        "python tools/nightly_report.py",
    )
    assert "Fixed by editing /w/tools/nightly_report.py" in four, four


def test_an_edit_of_the_function_an_inline_test_names_is_its_fix() -> None:
    test = (
        "/w/venv/bin/python3 -c \"\nimport sys\nsys.path.insert(0, '/w/tools')\n"
        "from tabulate import tabulate\n"
        "def render_totals(rows):\n    return tabulate(rows, tablefmt='nope')\n"
        'print(render_totals([[1, 2]]))\n"'
    )
    four = _edit_then_rerun(
        test,
        "Exit code 1\ntabulate.errors.FormatError: unknown table format 'nope'",
        {
            "file_path": "/w/tools/totals.py",
            "old_string": "def render_totals(rows):\n    return tabulate(rows, tablefmt='nope')",
            "new_string": "def render_totals(rows):\n    return tabulate(rows, tablefmt='github')",
        },
        '/w/venv/bin/python3 -c "\nfrom tabulate import tabulate\n'
        "print(tabulate([[1, 2]], tablefmt='github'))\n\"",
    )
    assert "Fixed by editing /w/tools/totals.py" in four, four
