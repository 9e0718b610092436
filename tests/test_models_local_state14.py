"""Blind check 14's "where work stands" (issue 28, rows 590-599): a call that exited 0 but
printed tagged error lines is not "no error line"; the CLI's usage-limit message is no answer
and leaves the work blocked; a background agent whose result says it was denied did not do its
work; a failure a later call of the same program got past is not unresolved."""

from __future__ import annotations

from compactor.facts.outcomes import error_lines
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 595: error lines tagged by level in a result that exited 0 ----------------------------------


def _seed_output() -> str:
    lines = ["Exit code: 0", "Wall time: 2.1 seconds", "Output:", "seeding items…"]
    for name in ("a4-paper.jpeg", "stapler.jpg", "laptop.jpg"):
        lines.append(
            f"[APP ?(seed:run)] [ERROR] 'image read error ({name}):' "
            f"[Error: Request to http://localhost:3000/items/{name} forbidden]"
        )
        lines.append(f"[APP ?(seed:run)] [ERROR] 'image read failed: {name}'")
    lines.append("[APP ?(seed:run)] [LOG] 'done: 12 items'")
    return "\n".join(lines)


def test_level_tagged_lines_after_a_source_tag_are_error_lines() -> None:
    text = "[APP x(y)] [ERROR] 'image failed: a.jpg'\n[APP x(y)] [LOG] 'ok'\n"
    text += '2025-01-02 10:00:00 ERROR: pool exhausted\nprint("[ERROR] x")\n'
    found = [line for _, line in error_lines(text)]
    assert found == [
        "[APP x(y)] [ERROR] 'image failed: a.jpg'",
        "2025-01-02 10:00:00 ERROR: pool exhausted",
    ]


def test_a_call_that_exited_0_but_printed_error_lines_is_not_said_error_free() -> None:
    """sn-legacy: ``pnpm -s db:seed`` exited 0 and printed twenty ``[CONVEX …] [ERROR]`` lines
    (ten "forbidden"); section 4 said no result "printed an error line"."""
    s = SessionBuilder()
    s.user("seed the database with the sample images")
    s.call("shell", {"command": ["bash", "-lc", "pnpm -s db:seed"]}, _seed_output())
    s.say("Seeded; some images could not be read (403).")
    errors = section(summarize_transcript(s.messages), 4)
    assert "printed an error line" not in errors, errors
    assert "pnpm -s db:seed did not fail, but printed:" in errors, errors
    assert "items/a4-paper.jpeg forbidden" in errors, errors
    assert "(6 error lines in all)" in errors, errors
