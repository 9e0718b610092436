"""Issue 28 after blind check 25 (fix25a): files converter commands wrote are created."""

from __future__ import annotations

from compactor.facts.converters import converter_output
from compactor.facts.outcomes import shell_words
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
