"""Issue 28 after blind check 25 (fix25a): files converter commands wrote are created."""

from __future__ import annotations

from compactor.facts.commands import shell_words
from compactor.facts.converters import converter_output
from compactor.models.local import summarize_transcript

from .planted_session import SessionBuilder
from .test_models_local_session import section

# -- 1. the output of ffmpeg / magick / convert / cwebp is a created file ----------------------


def test_files_converter_commands_write_are_created() -> None:
    s = SessionBuilder()
    s.user("make web versions of the clip and the poster")
    s.call(
        "Bash",
        {"command": 'ffmpeg -i clip.mp4 -c:v libvpx-vp9 -crf 30 -an -y "out/clip-30.webm" '
                    "2>&1 | tail -1"},
        "",
    )  # fmt: skip
    s.call("Bash", {"command": "cwebp -q 80 poster.png -o /srv/site/poster.webp"}, "Saved")
    s.call("Bash", {"command": "magick poster.png -resize 400x400 -quality 70 thumb.webp"}, "")
    s.call("Bash", {"command": "convert logo.png -strip logo-small.jpg 2>/dev/null"}, "")
    s.say("Done: four files.")
    files = section(summarize_transcript(s.messages), 3)
    assert "No file was created, edited or deleted." not in files, files
    for path in ("out/clip-30.webm", "/srv/site/poster.webp", "thumb.webp", "logo-small.jpg"):
        assert f"{path} (created by Bash" in files, files
    assert "clip.mp4 (" not in files and "poster.png (" not in files, files


def test_converter_outputs_in_a_loop_are_listed_as_their_pattern() -> None:
    s = SessionBuilder()
    s.user("convert every png here to webp")
    s.call(
        "Bash",
        {"command": 'OUT="/data/web"\nfor f in *.png; do cwebp "$f" -o "${f%.png}.webp"; done\n'
                    "for q in 90 70; do\n  magick hero.png -quality $q \"$OUT/hero-q${q}.webp\"\n"
                    "done"},
        "",
    )  # fmt: skip
    s.say("Converted.")
    files = section(summarize_transcript(s.messages), 3)
    assert "No file was created, edited or deleted." not in files, files
    assert "${f%.png}.webp (written by a loop, one file per value" in files, files
    assert "/data/web/hero-q${q}.webp (written by a loop, one file per value" in files, files


def test_converter_commands_that_write_nothing_name_no_file() -> None:
    for command in (
        "ffmpeg -version",
        "ffmpeg -encoders 2>/dev/null",
        "magick identify photo.png",
        "magick -version",
        "cwebp -version",
        "ffmpeg -i in.mp4 -f null -",
        "which convert",
    ):
        assert converter_output(shell_words(command)) is None, command
    assert converter_output(shell_words("do ffmpeg -i a.mov -y b.mp4")) == ("b.mp4", "ffmpeg")


# -- 2. a later request's unrelated failure, or a failed read retried, overtakes no answer ------

_DONE = "Added the archive button to the list page; it is working and the build passed. " * 7


def _earlier_title(text: str) -> str:
    return text.split("An earlier request's answer", 1)[1].split("\n", 1)[0]


def test_a_failed_read_in_the_next_request_retried_at_once_overtakes_no_answer() -> None:
    s = SessionBuilder()
    s.user("add an archive button to the list page")
    s.call("Edit", {"file_path": "web/ListPage.vue", "old_string": "a", "new_string": "b"}, "ok")
    s.say(_DONE)
    s.user("the build now fails in the detail page, fix it")
    s.call(
        "Bash",
        {"command": "sed -n '1,80p' web/pages/[itemId]/detail.vue"},
        "zsh:1: no matches found: web/pages/[itemId]/detail.vue",
        error=True,
    )
    s.call("Bash", {"command": "cat 'web/pages/[itemId]/detail.vue'"}, "<template>x</template>")
    s.call("Bash", {"command": "npm run build"}, "vite v5 building…")
    title = _earlier_title(summarize_transcript(s.messages))
    assert "overtook" not in title, title


def test_a_later_requests_failure_on_another_subject_overtakes_no_answer() -> None:
    s = SessionBuilder()
    s.user("add an archive button to the list page")
    s.call("Edit", {"file_path": "web/ListPage.vue", "old_string": "a", "new_string": "b"}, "ok")
    s.say(_DONE)
    s.user("now make the report export faster")
    s.call(
        "Bash",
        {"command": "python tools/export_report.py --bench"},
        "Traceback: boom\nError: x",
        error=True,
    )
    s.call("Bash", {"command": "ls tools"}, "export_report.py")
    title = _earlier_title(summarize_transcript(s.messages))
    assert "overtook" not in title, title
    s = SessionBuilder()  # a failure on the file the answer changed still overtakes it
    s.user("add an archive button to the list page")
    s.call("Edit", {"file_path": "web/ListPage.vue", "old_string": "a", "new_string": "b"}, "ok")
    s.say(_DONE)
    s.user("now style it")
    s.call(
        "Bash", {"command": "npx eslint web/ListPage.vue"}, "web/ListPage.vue: 3 errors", error=True
    )
    s.call("Bash", {"command": "ls web"}, "ListPage.vue")
    title = _earlier_title(summarize_transcript(s.messages))
    assert "a later result overtook it" in title, title


def test_a_no_such_file_a_later_call_created_is_no_standing_fact() -> None:
    s = SessionBuilder()
    s.user("add the draw service")
    s.call(
        "Bash",
        {"command": "sed -n '1,50p' app/services/draw_service.py"},
        "sed: app/services/draw_service.py: No such file or directory",
        error=True,
    )
    s.call(
        "Write", {"file_path": "app/services/draw_service.py", "content": "def draw(): ...\n"}, "ok"
    )
    s.say("Created the draw service.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "A fact it established" not in errors, errors
    assert "Not there at the time" in errors and "a later call created" in errors, errors
    s = SessionBuilder()  # never created: still a fact it established
    s.user("is there a draw service?")
    s.call(
        "Bash",
        {"command": "sed -n '1,50p' app/services/draw_service.py"},
        "sed: app/services/draw_service.py: No such file or directory",
        error=True,
    )
    s.call("Bash", {"command": "ls app/services"}, "user_service.py")
    s.say("There is none.")
    errors = section(summarize_transcript(s.messages), 4)
    assert "A fact it established" in errors, errors


# -- 3. a prohibition said of one object ("do not resize it") ends when a later request asks for it


def _rules(intent: str) -> str:
    head = "Constraints and preferences stated by the user:"
    return intent.split(head, 1)[1] if head in intent else ""


def test_a_pronoun_prohibition_a_later_request_asks_for_is_superseded() -> None:
    s = SessionBuilder()
    s.user("I just replaced banner-03. do not resize it. just export it to png")
    s.call("Bash", {"command": "magick banner-03.tif banner-03.png"}, "")
    s.say("Done: banner-03.png at its own size.")
    s.user("i added a hero image. resize it to 800x600 and export to png")
    s.call("Bash", {"command": "magick hero.tif -resize 800x600 hero.png"}, "")
    s.say("Done: hero.png at 800x600.")
    intent = section(summarize_transcript(s.messages), 1)
    assert "do not resize it" not in _rules(intent), intent
    s = SessionBuilder()  # no later request asks to resize: the rule stands
    s.user("I just replaced banner-03. do not resize it. just export it to png")
    s.call("Bash", {"command": "magick banner-03.tif banner-03.png"}, "")
    s.say("Done: banner-03.png at its own size.")
    s.user("now export it to jpg too")
    s.call("Bash", {"command": "magick banner-03.tif banner-03.jpg"}, "")
    s.say("Done.")
    intent = section(summarize_transcript(s.messages), 1)
    assert "do not resize it" in _rules(intent), intent


# -- 4. a guessed cause the agent replaced by the real one later is labelled so ------------------


def _guessed(real: str) -> SessionBuilder:
    s = SessionBuilder()
    s.user("the sync job keeps failing, fix it")
    s.call("Bash", {"command": "./sync.sh"}, "sync: cannot open data/in.csv", error=True)
    s.say("Background jobs aren't inheriting the working directory. Running with absolute paths:")
    s.call("Bash", {"command": "/srv/app/sync.sh"}, "sync: cannot open data/in.csv", error=True)
    s.say(real)
    s.call("Bash", {"command": "/srv/app/sync.sh --input ' in.csv'"}, "synced 120 rows")
    s.say("Done: the sync ran and wrote 120 rows.")
    return s


def test_a_guessed_cause_replaced_by_the_real_one_is_labelled_so() -> None:
    s = _guessed(
        "The input file has a leading space in its name — that's what was tripping up every "
        "previous attempt. Running with the right name:"
    )
    solving = section(summarize_transcript(s.messages), 5)
    assert "First guess, later replaced: Background jobs aren't inheriting" in solving, solving
    s = _guessed("Running it once more with the name quoted:")
    solving = section(summarize_transcript(s.messages), 5)
    assert "First guess" not in solving, solving
