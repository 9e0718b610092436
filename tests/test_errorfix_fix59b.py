"""Section 4's "error → fix" pairing and section 7's unfixed failures (fix59b, issue 28; blind
check 59: a failure is fixed or worked around when the same script, the same operation or the
same question later succeeds, however it was run). Each session is built by shape, with
invented content."""

from __future__ import annotations

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
